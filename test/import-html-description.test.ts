/**
 * A description holding an HTML table imports (issue 17 item 14): `svc init` once failed the
 * whole import with `INTERNAL: … Cannot handle unknown node "table"`. The table arrives as a GFM
 * table in the tool description, and the import reports no warning.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { importFolder } from '../generator/import/index.js';
import type { SvcConfig } from '../schemas/types.js';

let root: string | undefined;
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
});

/** Imports `document` (written beside the folder) into <root>/<id>, as `svc init` does. */
async function importDocument(id: string, name: string, document: object) {
  await writeFile(join(root!, `${id}.json`), JSON.stringify(document));
  const config: SvcConfig = {
    schemaVersion: 1,
    server: { id, name: 'Default', published: false },
    app: { name, provider: 'openapi' },
    source: { kind: 'openapi', location: `../${id}.json` },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: '',
    requiredEnv: [],
  };
  return importFolder({ dir: join(root!, id), config });
}

it('imports a document whose descriptions hold HTML tables', async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-html-'));
  const document = {
    openapi: '3.0.3',
    info: { title: 'Limits', version: '1' },
    servers: [{ url: 'https://api.example.test' }],
    paths: {
      '/limits': {
        get: {
          operationId: 'getLimits',
          summary: 'Rate limits',
          description:
            '<p>Limits per plan:</p><table><tr><th>Plan</th><th>Calls</th></tr><tr><td>Free</td><td>100</td></tr></table>',
          parameters: [
            {
              name: 'plan',
              in: 'query',
              description: '<table><tr><td>free</td><td>the default</td></tr></table>',
              schema: { type: 'string' },
            },
          ],
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  };
  const result = await importDocument('limits', 'Limits', document);
  expect(result.error?.describe()).toBeUndefined();
  expect(result.status).toBe('complete');
  expect(result.warnings).toBeUndefined();
  const tool = await readFile(join(root, 'limits', 'Tools', 'getLimits.yaml'), 'utf8');
  expect(tool).toMatch(/\| Plan +\| Calls +\|/);
  expect(tool).toMatch(/\| free +\| the default +\|/);
});

it('converts HTML that only a later tool holds, in a property of its body, once earlier texts were plain', async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-html-'));
  const document = {
    openapi: '3.0.3',
    info: { title: 'Notes', version: '1' },
    servers: [{ url: 'https://api.example.test' }],
    paths: {
      '/a': {
        get: {
          operationId: 'first',
          summary: 'Plain text',
          responses: { 200: { description: 'ok', content: { 'application/json': { example: '<p>x</p>' } } } },
        },
      },
      '/b': {
        post: {
          operationId: 'second',
          summary: 'Plain too',
          requestBody: {
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    note: { type: 'string', description: '<p>A <strong>bold</strong> note</p>' },
                  },
                },
              },
            },
          },
          responses: { 200: { description: 'ok' } },
        },
      },
    },
  };
  const result = await importDocument('notes', 'Notes', document);
  expect(result.error?.describe()).toBeUndefined();
  const second = await readFile(join(root, 'notes', 'Tools', 'second.yaml'), 'utf8');
  expect(second).toContain('A **bold** note');
  expect(second).not.toContain('<strong>');
  const first = await readFile(join(root, 'notes', 'Tools', 'first.yaml'), 'utf8');
  expect(first).toContain('Plain text');
});
