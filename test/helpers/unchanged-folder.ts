/**
 * What the tests of the unchanged replay share (import-unchanged, import-stat-index): a Petstore
 * config whose document (and content directory) sit two levels above the folder, a clock that
 * moves, and a marker only a replay shows.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { UNCHANGED_FILE } from '../../generator/history/index.js';
import type { SvcConfig } from '../../schemas/types.js';

/** The config of `<root>/a/petstore` reading `<root>/api.yaml` (and `<root>/content`). */
export function petstoreConfig({ content = false } = {}): SvcConfig {
  return {
    schemaVersion: 1,
    server: { id: 'petstore', name: 'Default', published: false },
    app: { name: 'Petstore', provider: 'openapi' },
    source: {
      kind: 'openapi',
      location: '../../api.yaml',
      ...(content ? { contentDir: '../../content' } : {}),
    },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: '',
    requiredEnv: [],
  };
}

/** A clock that moves: both runs of a comparison start from the same instant. */
export const clockFrom = (start: number) => {
  let t = start;
  return () => new Date(Date.UTC(2026, 0, 1) + t++ * 1000);
};

/** A marker only a replay shows: the recorded tool count (the fingerprint does not cover it). */
export async function markReplay(dir: string): Promise<void> {
  const file = path.join(dir, UNCHANGED_FILE);
  const entry = JSON.parse(await readFile(file, 'utf8')) as { counts: { tools: number } };
  entry.counts.tools = 999;
  await writeFile(file, JSON.stringify(entry));
}
