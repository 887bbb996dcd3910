/**
 * A config.yaml is written by whoever can push to the branch, not by whoever runs the import. Its
 * `source.location` and `source.contentDir` may not reach the importing machine's files: an absolute
 * path, a path climbing out with `..` or a link leading out is refused, naming the field, by a
 * control-service import job (nothing is committed) and by a plain re-import in a checkout (the
 * Action's merge mode, CI).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { svcEngine } from '../action/src/svc-engine.js';
import type { RunningControl } from '../control/index.js';
import { importFolder } from '../generator/import/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { startTestControl } from './helpers/control-service.js';

const SECRET = 'host-secret-7d1f0c9a';
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/action/${name}`, import.meta.url), 'utf8');

let repo: TestRepo;
// The service's host: an OpenAPI file and a Docs/ page that no repository holds.
const host = mkdtempSync(join(tmpdir(), 'svc-host-files-'));
let data: string;
let control: RunningControl;
let pat: string;

const api = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
  });
  return (await response.json()) as Record<string, unknown>;
};

async function runJob(): Promise<Record<string, unknown>> {
  const { jobId } = await api('/v1/servers/pets/imports', { method: 'POST' });
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = await api(`/v1/servers/pets/imports/${String(jobId)}`);
    if (job.status === 'Complete' || job.status === 'Failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${String(jobId)} still ${String(job.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const head = () => execFileSync('git', ['rev-parse', 'main'], { cwd: repo.origin, encoding: 'utf8' }).trim();

/** Pushes config.yaml with `source` changed. */
function pushSource(source: Record<string, unknown>): void {
  repo.git('pull', '-q', '--ff-only', 'origin', 'main');
  const file = join(repo.dir, 'mcp', 'pets', 'config.yaml');
  const config = parseYaml(readFileSync(file, 'utf8')) as SvcConfig;
  writeFileSync(file, stringify({ ...config, source }));
  repo.commit('point the source elsewhere');
  repo.git('push', '-q', 'origin', 'main');
}

beforeAll(async () => {
  writeFileSync(join(host, 'openapi.yaml'), fixture('petstore-v2.yaml'));
  mkdirSync(join(host, 'Docs'));
  writeFileSync(join(host, 'Docs', 'secret.md'), `---\ntitle: Secret\n---\n${SECRET}\n`);

  repo = createTestRepo();
  repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml') });
  const config = parseYaml(
    configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' })
      .replace('provider: manual', 'provider: openapi')
      .replace('published: false', 'published: true'),
  ) as SvcConfig;
  const first = await importFolder({
    dir: join(repo.dir, 'mcp', 'pets'),
    config,
    now: () => new Date('2026-01-01T00:00:00Z'),
  });
  expect(first.status, first.error?.describe()).toBe('complete');
  repo.commit('add the pets server');
  repo.git('push', '-q', 'origin', 'main');

  ({ data, pat, control } = await startTestControl('svc-confined-data-', { logger: { log() {} } }));
  const created = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.origin, branch: 'main', path: 'mcp/pets' }),
  });
  expect(created.serverId).toBe('pets');
}, 60_000);

afterAll(async () => {
  await control?.close();
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
  rmSync(host, { recursive: true, force: true });
});

describe('a control-service import job', () => {
  const climbing = `${'../'.repeat(40)}${host.slice(1)}`;
  it.each([
    ['an absolute source.location', { location: join(host, 'openapi.yaml') }, 'source.location'],
    ['a source.location climbing out', { location: `${climbing}/openapi.yaml` }, 'source.location'],
    [
      'an absolute source.contentDir',
      { location: '../../specs/petstore.yaml', contentDir: host },
      'source.contentDir',
    ],
    [
      'a source.contentDir climbing out',
      { location: '../../specs/petstore.yaml', contentDir: climbing },
      'source.contentDir',
    ],
  ])('refuses %s and commits nothing', async (_what, source, field) => {
    pushSource({ kind: 'openapi', ...source });
    const before = head();
    const job = await runJob();
    expect(job.status, JSON.stringify(job)).toBe('Failed');
    expect(job.failedStep).toMatch(/^import/);
    expect(String(job.error)).toContain(field);
    expect(String(job.error)).toContain('inside its repository');
    expect(head()).toBe(before);
    const log = execFileSync('git', ['log', '-p', '--all'], { cwd: repo.origin, encoding: 'utf8' });
    expect(log).not.toContain(SECRET);
    expect(log).not.toContain('operationId: createPets'); // only the host's document has it
  });

  it('still imports a source inside the repository', async () => {
    pushSource({ kind: 'openapi', location: '../../specs/petstore.yaml' });
    const job = await runJob();
    expect(job.status, JSON.stringify(job)).toBe('Complete');
  });
});

describe('a re-import in a checkout (the Action, CI)', () => {
  it('refuses a path leaving the work tree and a link leading out of it', async () => {
    const dir = join(repo.dir, 'mcp', 'pets');
    const config = readFileSync(join(dir, 'config.yaml'), 'utf8');
    try {
      pushSource({ kind: 'openapi', location: relative(dir, join(host, 'openapi.yaml')) });
      const climbed = await importFolder({ dir, dryRun: true });
      expect(climbed.status).toBe('failed');
      expect(climbed.error?.place.field).toBe('source.location');
      // The Action's merge mode re-imports through the same orchestrator.
      const action = await svcEngine.reimport({ dir, dryRun: false });
      expect(action.status).toBe('failed');
      expect(action.error).toContain('source.location');

      symlinkSync(host, join(repo.dir, 'specs', 'linked'));
      pushSource({ kind: 'openapi', location: '../../specs/linked/openapi.yaml' });
      const linked = await importFolder({ dir, dryRun: true });
      expect(linked.status).toBe('failed');
      expect(linked.error?.message).toContain('link leading outside');

      pushSource({
        kind: 'openapi',
        location: '../../specs/petstore.yaml',
        contentDir: '../../specs/linked',
      });
      const content = await importFolder({ dir, dryRun: true });
      expect(content.status).toBe('failed');
      expect(content.error?.place.field).toBe('source.contentDir');
    } finally {
      writeFileSync(join(dir, 'config.yaml'), config);
      rmSync(join(repo.dir, 'specs', 'linked'), { force: true });
    }
  });
});
