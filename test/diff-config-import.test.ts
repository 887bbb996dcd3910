/**
 * Issue 24: the `diff:` block of config.yaml tunes rule levels in a real re-import (Petstore v1 → v2),
 * and a rule id it does not know fails the import with a message naming the field.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { importFolder } from '../generator/import/index.js';
import { reportHits } from '../generator/report/index.js';
import type { SvcConfig } from '../schemas/types.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures', 'reimport');
const roots: string[] = [];
const now = () => new Date(Date.UTC(2026, 0, 1));

async function folder(
  diff: SvcConfig['diff'],
): Promise<{ dir: string; first: Awaited<ReturnType<typeof importFolder>> }> {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-diff-config-'));
  roots.push(root);
  const dir = path.join(root, 'petstore');
  const config: SvcConfig = {
    schemaVersion: 1,
    server: { id: 'petstore', name: 'Default', published: false },
    app: { name: 'Petstore', provider: 'openapi' },
    source: { kind: 'openapi', location: path.relative(dir, path.join(fixtures, 'petstore-v1.yaml')) },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: '',
    requiredEnv: [],
    ...(diff ? { diff } : {}),
  };
  const first = await importFolder({ dir, config, now });
  return { dir, first };
}

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

describe('config.yaml diff: in a re-import', () => {
  it('lowers the rules it names; the endpoint is no longer breaking', async () => {
    const { dir, first } = await folder({
      rules: {
        'request-parameter-became-required': 'info',
        'request-parameter-enum-value-removed': 'warning',
      },
    });
    expect(first.status).toBe('complete');
    const second = await importFolder({
      dir,
      location: path.join(fixtures, 'petstore-v2.yaml'),
      now,
      dryRun: true,
    });
    expect(second.status).toBe('complete');
    const change = second.report.endpoints.find((e) => e.key === 'GET /pet/findByStatus')!;
    expect(change.changes.map((c) => `${c.id}:${c.level}`).sort()).toEqual([
      'request-parameter-became-required:info',
      'request-parameter-enum-value-removed:warning',
    ]);
    expect(change.breaking).toBe(false);
    expect(reportHits(second.report, 'breaking')).toBe(false);
  });

  it('refuses a rule id it does not know, naming the field', async () => {
    const { first } = await folder({ rules: { 'request-parameter-became-requird': 'info' } });
    expect(first.status).toBe('failed');
    expect(first.error?.message).toContain('unknown rule id "request-parameter-became-requird"');
    expect(first.error?.place?.field).toBe('diff.rules.request-parameter-became-requird');
  });
});
