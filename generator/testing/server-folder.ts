/**
 * Hand-built server folders for tests that exercise the action without a source to import from: a
 * config.yaml, Tools/<key>.yaml and the .svc/ bookkeeping of one or more imports, written with the
 * generator's own history code so the action reads exactly what an import would have left.
 */
import { stringify } from 'yaml';
import type { FolderFiles } from '../../folder/model.js';
import { nextBookkeeping } from '../history/index.js';
import type { Endpoint, HistoryRecord } from '../../schemas/types.js';

export interface TestTool {
  key: string;
  name: string;
  enabled: boolean;
  method: Endpoint['method'];
  path: string;
}

export function endpoint(method: Endpoint['method'], path: string, extra: Partial<Endpoint> = {}): Endpoint {
  return { method, path, parameters: [], tags: [], deprecated: false, security: [], ...extra };
}

export function configYaml(id: string, source: Record<string, unknown> = { kind: 'manual' }): string {
  return stringify({
    schemaVersion: 1,
    server: { id, name: `Server ${id}`, published: false },
    app: { name: id, provider: source['kind'] === 'openapi' ? 'openapi' : 'manual' },
    source,
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: 'https://api.example.test',
    requiredEnv: [],
  });
}

export function toolYaml(t: TestTool, sortOrder = 0): string {
  return stringify({
    name: t.name,
    description: `${t.method} ${t.path}`,
    enabled: t.enabled,
    sortOrder,
    origin: 'imported',
    endpoint: { method: t.method, path: t.path },
    classification: 'action',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  });
}

/** Appends one complete import of `endpoints` to the folder's .svc/ bookkeeping. */
export function withImport(
  files: FolderFiles,
  endpoints: Endpoint[],
  at = '2026-01-01T00:00:00.000Z',
): FolderFiles {
  const seq = Object.keys(files).filter((p) => p.startsWith('.svc/history/')).length + 1;
  const record: HistoryRecord = {
    schemaVersion: 1,
    seq,
    status: 'complete',
    statusLog: [
      { status: 'pending', at },
      { status: 'complete', at },
    ],
    source: { location: 'openapi.json' },
    changed: true,
    summary: `import ${seq}`,
  };
  const next = nextBookkeeping({ previous: files, record, endpoints });
  const out: FolderFiles = {};
  for (const [p, t] of Object.entries(files)) if (!p.startsWith('.svc/')) out[p] = t;
  return { ...out, ...next.files };
}

export function serverFolder(id: string, tools: TestTool[], imports: Endpoint[][] = []): FolderFiles {
  let files: FolderFiles = { 'config.yaml': configYaml(id) };
  tools.forEach((t, i) => {
    files[`Tools/${t.key}.yaml`] = toolYaml(t, i);
  });
  for (const list of imports) files = withImport(files, list);
  return files;
}

export function prefixed(prefix: string, files: FolderFiles): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([p, t]) => [`${prefix}/${p}`, t]));
}
