/**
 * A server's source credential is bound to the URL it was set for (given as `url`, else the source
 * config.yaml names when it is set): a later config.yaml pointing the source elsewhere does not take
 * the token along; plain http is refused (loopback excepted); a credential set before this binding
 * existed is sent nowhere and the job says how to set it again.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import type { RunningControl } from '../control/index.js';
import { loadControlKey, secretBox } from '../core/secret-box.js';
import { sealSourceCredential } from '../control/source-credential.js';
import { importFolder } from '../generator/import/index.js';
import { type GitHttpServer, startGitHttpServer } from '../generator/sources/testing/git-http-server.js';
import { makeRepo } from '../generator/sources/testing/git-repo-fixture.js';
import type { SvcConfig } from '../schemas/types.js';
import { startTestControl } from './helpers/control-service.js';

const TOKEN = 'glpat-scopeCred-2c4e6a8b0d';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/action/${name}`, import.meta.url), 'utf8');

let root: string;
let gitServer: GitHttpServer;
let sourceUrl: string;
let other: Server;
let otherUrl: string;
const seen: IncomingMessage[] = [];
let repo: TestRepo;
let data: string;
let control: RunningControl;
let pat: string;

const api = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
  });
  const text = await response.text();
  return { status: response.status, text, json: () => JSON.parse(text) as Record<string, unknown> };
};

async function runJob(): Promise<Record<string, unknown>> {
  const jobId = (await api('/v1/servers/pets/imports', { method: 'POST' })).json().jobId as string;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await api(`/v1/servers/pets/imports/${jobId}`)).json();
    if (job.status === 'Complete' || job.status === 'Failed') return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${String(job.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function pushRepository(repository: string): void {
  repo.git('pull', '-q', '--ff-only', 'origin', 'main');
  const file = join(repo.dir, 'mcp', 'pets', 'config.yaml');
  const config = parseYaml(readFileSync(file, 'utf8')) as { source: Record<string, unknown> };
  writeFileSync(file, stringify({ ...config, source: { ...config.source, repository } }));
  repo.commit('move the source');
  repo.git('push', '-q', 'origin', 'main');
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-source-cred-scope-'));
  const source = await makeRepo(root, 'specs');
  source.commit({ 'openapi/petstore.yaml': fixture('petstore-v1.yaml') }, 'v1');
  gitServer = await startGitHttpServer({ root: join(root, 'repos'), authorize: (a) => a === BASIC });
  sourceUrl = `${gitServer.url}/specs.git`;
  other = createServer((req, res) => {
    seen.push(req);
    res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
  });
  await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
  otherUrl = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;

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
    git: { token: TOKEN, cacheDir: join(root, 'setup-cache') },
  });
  expect(first.status, first.error?.describe()).toBe('complete');
  repo.commit('add the pets server');
  repo.git('push', '-q', 'origin', 'main');
  source.commit({ 'openapi/petstore.yaml': fixture('petstore-v2.yaml') }, 'v2');

  ({ data, pat, control } = await startTestControl('svc-source-cred-scope-data-', {
    allowPrivateAddresses: true,
    logger: { log() {} },
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
  other?.closeAllConnections();
  await new Promise((r) => other?.close(r));
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
  rmSync(root, { recursive: true, force: true });
});

describe("a server's source credential", () => {
  it('refuses a URL over plain http to a host other than loopback', async () => {
    const set = await api('/v1/servers/pets/source-credential', {
      method: 'PUT',
      body: JSON.stringify({ token: TOKEN, url: 'http://git.example.com/team/' }),
    });
    expect(set.status).toBe(400);
    expect(set.text).toContain('https');
    expect(set.text).not.toContain(TOKEN);
  });

  it('is bound to the source config.yaml names when it is set, and reads it', async () => {
    const set = await api('/v1/servers/pets/source-credential', {
      method: 'PUT',
      body: JSON.stringify({ token: TOKEN }),
    });
    expect(set.status, set.text).toBe(200);
    expect((set.json().sourceCredential as { url: string }).url).toBe(sourceUrl);
    const job = await runJob();
    expect(job.status, JSON.stringify(job)).toBe('Complete');
  });

  it('is not sent where a later config.yaml points', async () => {
    for (const elsewhere of [`${otherUrl}/specs.git`, `${sourceUrl}.evil`]) {
      pushRepository(elsewhere);
      const job = await runJob();
      expect(job.status).toBe('Failed');
      expect(String(job.error)).toContain(`is for ${sourceUrl}, not`);
      expect(String(job.error)).not.toContain(TOKEN);
    }
    expect(seen.some((r) => r.headers.authorization !== undefined)).toBe(false);
    pushRepository(sourceUrl);
  });

  it('set before the binding existed is sent nowhere, and the job says how to set it again', async () => {
    const box = secretBox(await loadControlKey(data, undefined));
    await control.store.setSourceCredential('pets', sealSourceCredential(box, { token: TOKEN }));
    const job = await runJob();
    expect(job.status).toBe('Failed');
    expect(String(job.error)).toContain('set before credentials were bound to a URL');
    expect(String(job.error)).toContain('PUT /v1/servers/pets/source-credential');
  });
});
