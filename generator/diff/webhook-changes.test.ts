import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { SvcConfig } from '../../schemas/types.js';
import { toWebhooks } from '../endpoints/index.js';
import { importFolder } from '../import/index.js';
import { parseDocument } from '../parse/index.js';
import { webhookChanges } from './webhook-changes.js';

const hook = (properties: Record<string, unknown>) => ({
  post: {
    requestBody: {
      content: { 'application/json': { schema: { type: 'object', required: ['id'], properties } } },
    },
    responses: { '200': { description: 'ok' } },
  },
});

function doc(openapi: string, webhooks?: Record<string, unknown>, key = 'webhooks'): string {
  return JSON.stringify(
    {
      openapi,
      info: { title: 'hooks', version: '1' },
      servers: [{ url: 'https://api.example.test' }],
      paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
      ...(webhooks ? { [key]: webhooks } : {}),
    },
    null,
    2,
  );
}

async function webhooksOf(text: string) {
  return toWebhooks(await parseDocument({ text, origin: '/doc.json', bytes: text.length }));
}

describe('webhookChanges', () => {
  it('reads the previous webhooks from the document the folder holds', async () => {
    const before = doc('3.1.0', { newPet: hook({ id: { type: 'string' } }), gonePet: hook({}) });
    const after = doc('3.1.0', { newPet: hook({ id: { type: 'integer' } }), addedPet: hook({}) });
    const changes = await webhookChanges(before, await webhooksOf(after));
    expect(changes.map((c) => [c.key, c.kind, c.changes.map((x) => x.id)])).toEqual([
      ['POST webhook addedPet', 'added', ['webhook-added']],
      ['POST webhook gonePet', 'removed', ['webhook-removed']],
      ['POST webhook newPet', 'changed', ['webhook-payload-loosened']],
    ]);
  });

  it('does not read a previous document that cannot have webhooks', async () => {
    const after = await webhooksOf(doc('3.1.0', { newPet: hook({}) }));
    for (const previous of [undefined, doc('3.0.3'), doc('3.1.0')])
      expect((await webhookChanges(previous, after)).map((c) => c.kind)).toEqual(['added']);
    expect(await webhookChanges(doc('3.0.3'), [])).toEqual([]);
  });

  it('reads the x-webhooks of an OpenAPI 3.0 document (GitHub) as webhooks, on both sides', async () => {
    const before = doc('3.0.3', { newPet: hook({ id: { type: 'string' } }) }, 'x-webhooks');
    const changed = doc('3.0.3', { newPet: hook({ id: { type: 'integer' } }) }, 'x-webhooks');
    const changes = await webhookChanges(before, await webhooksOf(changed));
    expect(changes.map((c) => [c.key, c.kind, c.changes.map((x) => x.id)])).toEqual([
      ['POST webhook newPet', 'changed', ['webhook-payload-loosened']],
    ]);
    // The near miss: the same x-webhooks on both sides report nothing (no webhook reads as added).
    expect(await webhookChanges(before, await webhooksOf(before))).toEqual([]);
  });

  it('reports a removed webhook in the report of svc diff (a dry-run re-import)', async () => {
    const work = await mkdtemp(path.join(tmpdir(), 'svc-webhooks-'));
    try {
      await writeFile(path.join(work, 'v1.json'), doc('3.1.0', { newPet: hook({ id: { type: 'string' } }) }));
      await writeFile(path.join(work, 'v2.json'), doc('3.1.0'));
      const config: SvcConfig = {
        schemaVersion: 1,
        server: { id: 'hooks', name: 'Hooks', published: false },
        app: { name: 'Hooks', provider: 'openapi' },
        source: { kind: 'openapi', location: '../v1.json' },
        auth: { mode: 'none', hasAuthSecret: false },
        apiBaseUrl: 'https://api.example.test',
        requiredEnv: [],
      };
      const dir = path.join(work, 'folder');
      const first = await importFolder({ dir, config });
      expect(first.status).toBe('complete');
      const diff = await importFolder({ dir, location: path.join(work, 'v2.json'), dryRun: true });
      if (diff.status !== 'complete') throw diff.error;
      const hooks = diff.report.endpoints.filter((e) => e.group === 'webhooks');
      expect(hooks.map((e) => [e.key, e.breaking, e.changes.map((c) => c.id)])).toEqual([
        ['POST webhook newPet', true, ['webhook-removed']],
      ]);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });
});
