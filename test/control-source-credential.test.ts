/**
 * A control-service server whose folder's source is a private git repository: a real repository
 * served over smart HTTP on loopback that answers 401 without Basic auth. An import job fails at the
 * import step with an error naming the source URL and the credential to set; after
 * `PUT /v1/servers/{id}/source-credential` the job re-imports and commits; after DELETE it fails
 * again. The credential shows up in no API answer, status page, job record, log line, committed file
 * or file of the data directory (the database keeps it sealed).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { type RunningControl, startControl } from '../control/index.js';
import { importFolder } from '../generator/import/index.js';
import { type GitHttpServer, startGitHttpServer } from '../generator/sources/testing/git-http-server.js';
import { makeRepo, type RepoFixture } from '../generator/sources/testing/git-repo-fixture.js';
import type { SvcConfig } from '../schemas/types.js';
import { startTestControl } from './helpers/control-service.js';

const USER = 'reader';
const TOKEN = 'glpat-srcCred-93f0c1d2e4b5';
const BASIC = `Basic ${Buffer.from(`${USER}:${TOKEN}`).toString('base64')}`;
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/action/${name}`, import.meta.url), 'utf8');

let root: string;
let source: RepoFixture;
let gitServer: GitHttpServer;
let sourceUrl: string;
let repo: TestRepo;
let data: string;
let control: RunningControl;
let pat: string;
const logs: string[] = [];
const answers: string[] = [];

const api = async (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  const token = init.token ?? pat;
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  const response = await fetch(`${control.url}${path}`, { ...init, headers });
  const text = await response.text();
  answers.push(text);
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

async function runJob(): Promise<Record<string, unknown>> {
  const queued = await api('/v1/servers/pets/imports', { method: 'POST' });
  expect(queued.status).toBe(202);
  const jobId = queued.json().jobId as string;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await api(`/v1/servers/pets/imports/${jobId}`)).json();
    if (job.status === 'Complete' || job.status === 'Failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${String(job.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const head = () => execFileSync('git', ['rev-parse', 'main'], { cwd: repo.origin, encoding: 'utf8' }).trim();

/** Every file under `dir` as bytes read as latin1 (the database, its journal, the key, scratch). */
function filesUnder(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) Object.assign(out, filesUnder(full));
    else out[full] = readFileSync(full, 'latin1');
  }
  return out;
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-control-source-cred-'));
  source = await makeRepo(root, 'specs');
  source.commit({ 'openapi/petstore.yaml': fixture('petstore-v1.yaml') }, 'v1');
  gitServer = await startGitHttpServer({ root: join(root, 'repos'), authorize: (a) => a === BASIC });
  sourceUrl = `${gitServer.url}/specs.git`;
  repo = createTestRepo();
  const config = parseYaml(
    configYaml('pets', {
      kind: 'git',
      provider: 'git',
      repository: sourceUrl,
      branch: 'main',
      path: 'openapi/petstore.yaml',
    })
      .replace('provider: manual', 'provider: git')
      .replace('published: false', 'published: true'),
  ) as SvcConfig;
  const first = await importFolder({
    dir: join(repo.dir, 'mcp', 'pets'),
    config,
    now: () => new Date('2026-01-01T00:00:00Z'),
    git: { token: TOKEN, username: USER, cacheDir: join(root, 'setup-cache') },
  });
  expect(first.status, first.error?.describe()).toBe('complete');
  repo.commit('add the pets server');
  repo.git('push', '-q', 'origin', 'main');
  // The API moves on: the next import changes the folder.
  source.commit({ 'openapi/petstore.yaml': fixture('petstore-v2.yaml') }, 'v2');

  ({ data, pat, control } = await startTestControl('svc-control-source-cred-data-', {
    // The source's git server is on loopback.
    allowPrivateAddresses: true,
    logger: { log: (level, event, fields) => logs.push(JSON.stringify({ level, event, fields })) },
  }));
  const created = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.origin, branch: 'main', path: 'mcp/pets' }),
  });
  expect(created.status, created.text).toBe(201);
}, 60_000);

afterAll(async () => {
  await control?.close();
  await gitServer?.close();
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe("a server's source credential", () => {
  it('without it, the job fails at the import and names the source URL and the credential to set', async () => {
    const before = head();
    const job = await runJob();
    expect(job.status).toBe('Failed');
    expect(String(job.failedStep)).toMatch(/^import/);
    const error = String(job.error);
    expect(error).toContain(`${sourceUrl} needs credentials`);
    expect(error).toContain('PUT /v1/servers/pets/source-credential');
    expect(error).not.toContain('SVC_GIT_TOKEN');
    expect(head()).toBe(before);
  });

  it('is set with a workspace token only, and a bad body is refused without echoing it', async () => {
    const body = JSON.stringify({ username: USER, token: TOKEN });
    expect((await api('/v1/servers/pets/source-credential', { method: 'PUT', body, token: '' })).status).toBe(
      401,
    );
    expect((await api('/v1/servers/nope/source-credential', { method: 'PUT', body })).status).toBe(404);
    const bad = await api('/v1/servers/pets/source-credential', {
      method: 'PUT',
      body: JSON.stringify({ username: 'a:b', token: TOKEN }),
    });
    expect(bad.status).toBe(400);
    expect(bad.text).not.toContain(TOKEN);
    const noToken = await api('/v1/servers/pets/source-credential', { method: 'PUT', body: '{}' });
    expect(noToken.status).toBe(400);
    const set = await api('/v1/servers/pets/source-credential', { method: 'PUT', body });
    expect(set.status).toBe(200);
    expect(set.json()).toEqual({
      serverId: 'pets',
      sourceCredential: { set: true, updatedAt: expect.any(String), url: sourceUrl },
    });
  });

  it('with it, the job reads the private source, re-imports and commits', async () => {
    const before = head();
    const seen = gitServer.requests.length;
    const job = await runJob();
    expect(job.error).toBeUndefined();
    expect(job.status).toBe('Complete');
    expect(job.commit).toBe(head());
    expect(head()).not.toBe(before);
    // The user name given went with the token.
    expect(gitServer.requests.slice(seen).some((r) => r.authorization === BASIC)).toBe(true);
    const config = execFileSync('git', ['show', 'main:mcp/pets/config.yaml'], {
      cwd: repo.origin,
      encoding: 'utf8',
    });
    expect(config).toContain(`repository: ${sourceUrl}`);
  });

  it('after DELETE, jobs read without it again', async () => {
    expect((await api('/v1/servers/pets/source-credential', { method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/servers/pets/source-credential', { method: 'DELETE' })).status).toBe(404);
    const job = await runJob();
    expect(job.status).toBe('Failed');
    expect(String(job.error)).toContain(`${sourceUrl} needs credentials`);
  });

  it('appears in no answer, status page, job record, log line, commit or data file', async () => {
    // Set it again so that the database holds it while we look.
    await api('/v1/servers/pets/source-credential', {
      method: 'PUT',
      body: JSON.stringify({ username: USER, token: TOKEN }),
    });
    await api('/v1/servers');
    const jobs = (await api('/v1/servers/pets/imports')).json() as unknown as { jobId: string }[];
    expect(jobs.length).toBe(3);
    for (const j of jobs) await api(`/v1/servers/pets/imports/${j.jobId}`);
    await api('/servers/pets/imports');
    for (const text of answers) expect(text).not.toContain(TOKEN);
    expect(logs.some((l) => l.includes('source_credential_set'))).toBe(true);
    for (const line of logs) expect(line).not.toContain(TOKEN);
    const rows = await control.store.db.selectFrom('import_jobs').selectAll().execute();
    expect(JSON.stringify(rows)).not.toContain(TOKEN);
    const sealed = await control.store.sourceCredential('pets');
    expect(sealed).toMatch(/^v1\./);
    expect(sealed).not.toContain(TOKEN);
    expect(sealed).not.toContain(Buffer.from(TOKEN).toString('base64'));
    await control.store.flushTouches();
    for (const [path, text] of Object.entries(filesUnder(data))) expect(text, path).not.toContain(TOKEN);
    const committed = execFileSync('git', ['log', '-p', '--all'], { cwd: repo.origin, encoding: 'utf8' });
    expect(committed).not.toContain(TOKEN);
  });

  it('sealed under another key, fails the job saying so instead of reading without it', async () => {
    await control.close();
    control = await startControl({
      port: 0,
      dataDir: data,
      controlKey: randomBytes(32).toString('base64'),
      allowPrivateAddresses: true,
      headRefreshMs: 0,
      workerPollMs: 200,
      logger: { log: (level, event, fields) => logs.push(JSON.stringify({ level, event, fields })) },
    });
    const job = await runJob();
    expect(job.status).toBe('Failed');
    expect(job.failedStep).toBe('import');
    expect(String(job.error)).toContain('cannot be opened with this control key');
    expect(String(job.error)).toContain('PUT /v1/servers/pets/source-credential');
    for (const line of logs) expect(line).not.toContain(TOKEN);
  });
});
