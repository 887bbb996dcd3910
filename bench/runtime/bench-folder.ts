/**
 * Server folders for the runtime benchmark, written to disk so that cold start includes
 * reading and validating them: a one-tool echo folder, and a folder with many enabled tools.
 */
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';

function config(apiBaseUrl: string): string {
  return stringify({
    schemaVersion: 1,
    server: { id: 'bench', name: 'Bench', published: false },
    app: { name: 'Bench', provider: 'manual' },
    source: { kind: 'manual' },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl,
    requiredEnv: [],
  });
}

function tool(name: string, index: number): string {
  return stringify({
    name,
    description: `Get item ${index} by id: a benchmark tool with a realistic description and schema.`,
    enabled: true,
    sortOrder: index,
    origin: 'manual',
    endpoint: { method: 'GET', path: `/echo/r${index}/{id}` },
    classification: 'get',
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    locations: {
      id: { in: 'path', name: 'id' },
      limit: { in: 'query', name: 'limit' },
      fields: { in: 'query', name: 'fields' },
    },
    inputSchema: {
      type: 'object',
      additionalProperties: false,
      required: ['id'],
      properties: {
        id: { type: 'string', description: 'Item id' },
        limit: { type: 'integer', minimum: 1, maximum: 100, description: 'Page size' },
        fields: { type: 'array', items: { type: 'string' }, description: 'Fields to include' },
      },
    },
  });
}

/** Writes a folder with `tools` tools named echo (the first) and t1..tN-1; returns its path. */
export async function writeBenchFolder(apiBaseUrl: string, tools: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-bench-'));
  await mkdir(join(dir, 'Tools'));
  await writeFile(join(dir, 'config.yaml'), config(apiBaseUrl));
  for (let i = 0; i < tools; i++) {
    const name = i === 0 ? 'echo' : `t${i}`;
    await writeFile(join(dir, 'Tools', `${name}.yaml`), tool(name, i));
  }
  return dir;
}
