/**
 * What the control service reaches on the network for URLs someone else wrote, and what it sends
 * there: repository and source URLs leading to loopback, private or link-local addresses are refused
 * at every redirect unless the operator allows them; SVC_GIT_TOKEN goes only to the hosts in
 * SVC_GIT_TOKEN_HOSTS, never after a redirect to another origin; an error quotes nothing the remote
 * answered; an answer larger than the cap is refused; a failed registration leaves no cache; the data
 * directory is the service's alone; a tree entry named `..` is refused by name.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { StartControlOptions } from '../control/index.js';
import { createServerRepo, FOLDER, type ServerRepo } from '../control/testing/server-repo.js';
import { addressPolicy } from '../generator/sources/address-policy.js';
import { isPrivateAddress } from '../core/private-address.js';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { startTestControl, type TestControl } from './helpers/control-service.js';

const TOKEN = 'ghp_serviceToken0123456789abcdef';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;

let root: string;
let repo: ServerRepo;
let gitServer: GitHttpServer;
let repositoryUrl: string;
const started: TestControl[] = [];
const servers: Server[] = [];

async function control(options: Omit<StartControlOptions, 'port' | 'dataDir'> = {}): Promise<TestControl> {
  const made = await startTestControl('svc-control-net-', { logger: { log() {} }, ...options });
  started.push(made);
  return made;
}

async function register(c: TestControl, repository: string) {
  const response = await fetch(`${c.control.url}/v1/servers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${c.pat}`, 'content-type': 'application/json' },
    body: JSON.stringify({ repository, branch: 'main', path: FOLDER }),
  });
  const body = (await response.json()) as { error?: { code: string; message: string } };
  return { status: response.status, body, text: JSON.stringify(body) };
}

/** A plain HTTP server on loopback; every request it saw. */
async function httpServer(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<{ url: string; seen: IncomingMessage[] }> {
  const seen: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    seen.push(req);
    handle(req, res);
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

const sawToken = () => gitServer.requests.some((r) => r.authorization?.includes(BASIC.slice(6)));

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-control-net-'));
  repo = await createServerRepo({ bareDir: join(root, 'repos', 'team', 'api.git') });
  gitServer = await startGitHttpServer({ root: join(root, 'repos'), authorize: (a) => a === BASIC });
  repositoryUrl = `${gitServer.url}/team/api.git`;
}, 60_000);

afterAll(async () => {
  for (const c of started) {
    await c.control.close();
    rmSync(c.data, { recursive: true, force: true });
  }
  for (const s of servers) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await gitServer?.close();
  repo?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

describe('private addresses', () => {
  it('are refused by default, however the loopback address is spelled, before anything is sent', async () => {
    const c = await control({ gitToken: TOKEN, gitTokenHosts: ['127.0.0.1'] });
    const port = new URL(gitServer.url).port;
    const before = gitServer.requests.length;
    for (const url of [
      repositoryUrl,
      `http://0x7f000001:${port}/team/api.git`,
      `http://2130706433:${port}/team/api.git`,
      `http://localhost:${port}/team/api.git`,
      `http://[::ffff:127.0.0.1]:${port}/team/api.git`,
    ]) {
      const answer = await register(c, url);
      expect(answer.status, url).toBe(400);
      expect(answer.body.error?.message, url).toMatch(/loopback, private or internal address/);
      expect(answer.body.error?.message).toContain('SVC_CONTROL_ALLOW_PRIVATE=1');
    }
    expect(gitServer.requests.length).toBe(before);
    // A failed registration leaves no cache behind.
    const cache = join(c.data, 'git-cache');
    expect(existsSync(cache) ? readdirSync(cache) : []).toEqual([]);
  });

  it('are refused after a redirect from a public address (link-local metadata)', async () => {
    const redirector = await httpServer((_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' }).end();
    });
    // 127.0.0.1 stands for a public host here; everything else private is still refused.
    const c = await control({
      addressPolicy: addressPolicy({ isPrivate: (a) => a !== '127.0.0.1' && isPrivateAddress(a) }),
    });
    const answer = await register(c, `${redirector.url}/team/api.git`);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain('redirected to http://169.254.169.254/latest/meta-data/');
    expect(answer.body.error?.message).toContain('169.254.169.254, a loopback, private or internal address');
    expect(redirector.seen.length).toBe(1);
  });

  it('are refused for a source URL an import job reads', async () => {
    const source = await httpServer((_req, res) => res.writeHead(200).end('openapi: 3.0.0\n'));
    const c = await control();
    const local = await createServerRepo();
    try {
      local.push(
        {
          [`${FOLDER}/config.yaml`]: stringify({
            schemaVersion: 1,
            server: { id: 'pets', name: 'Pets', published: true },
            app: { name: 'pets', provider: 'openapi' },
            source: { kind: 'openapi', location: `${source.url}/openapi.yaml` },
            auth: { mode: 'none', hasAuthSecret: false },
            apiBaseUrl: 'https://api.example.test',
            requiredEnv: [],
          }),
        },
        'read the document from an internal address',
      );
      expect((await register(c, local.bare)).status).toBe(201);
      const api = (path: string, init: RequestInit = {}) =>
        fetch(`${c.control.url}${path}`, { ...init, headers: { authorization: `Bearer ${c.pat}` } }).then(
          (r) => r.json() as Promise<Record<string, unknown>>,
        );
      const { jobId } = await api('/v1/servers/pets/imports', { method: 'POST' });
      let job: Record<string, unknown> = {};
      for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
        job = await api(`/v1/servers/pets/imports/${String(jobId)}`);
        if (job.status === 'Complete' || job.status === 'Failed') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(job.status, JSON.stringify(job)).toBe('Failed');
      expect(String(job.error)).toMatch(/loopback, private or internal address/);
      expect(source.seen.length).toBe(0);
    } finally {
      local.cleanup();
    }
  });
});

describe('SVC_GIT_TOKEN', () => {
  it('is sent to no host unless SVC_GIT_TOKEN_HOSTS lists it', async () => {
    const events: string[] = [];
    const c = await control({
      gitToken: TOKEN,
      allowPrivateAddresses: true,
      logger: { log: (level, event) => events.push(`${level} ${event}`) },
    });
    expect(events).toContain('warn git_token_unused');
    const answer = await register(c, repositoryUrl);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain('SVC_GIT_TOKEN_HOSTS');
    expect(sawToken()).toBe(false);
    const unlisted = await control({
      gitToken: TOKEN,
      gitTokenHosts: ['git.example.com'],
      allowPrivateAddresses: true,
    });
    expect((await register(unlisted, repositoryUrl)).status).toBe(400);
    expect(sawToken()).toBe(false);
  });

  it('is sent to a listed host (over http only to loopback)', async () => {
    const c = await control({
      gitToken: TOKEN,
      gitTokenHosts: [new URL(gitServer.url).host],
      allowPrivateAddresses: true,
    });
    const answer = await register(c, repositoryUrl);
    expect(answer.status, answer.text).toBe(201);
    expect(sawToken()).toBe(true);
  });

  it('is never sent after a redirect to another origin, even a listed one', async () => {
    const redirector = await httpServer((req, res) => {
      if (!req.headers.authorization) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
        return;
      }
      res
        .writeHead(302, {
          location: `${gitServer.url}/team/api.git${(req.url ?? '').replace(/^\/[^?]*?\.git/, '')}`,
        })
        .end();
    });
    const before = gitServer.requests.length;
    const c = await control({ gitToken: TOKEN, gitTokenHosts: ['127.0.0.1'], allowPrivateAddresses: true });
    const answer = await register(c, `${redirector.url}/team/api.git`);
    expect(answer.status).toBe(400);
    // The redirector (the origin the token is for) got it; the git server it pointed to did not.
    expect(redirector.seen.some((r) => r.headers.authorization === BASIC)).toBe(true);
    const after = gitServer.requests.slice(before);
    expect(after.length).toBeGreaterThan(0);
    expect(after.some((r) => r.authorization !== undefined)).toBe(false);
  });
});

describe('what a remote answers', () => {
  it('is not quoted back in an error', async () => {
    const page = await httpServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/plain' }).end('INTERNAL ADMIN PAGE: db password hunter2\n'),
    );
    const c = await control({ allowPrivateAddresses: true });
    const answer = await register(c, `${page.url}/team/api.git`);
    expect(answer.status).toBe(400);
    expect(answer.text).not.toContain('hunter2');
    expect(answer.text).not.toContain('INTERNAL ADMIN');
    expect(answer.body.error?.message).toContain('not a git smart-HTTP answer');
  });

  it('is refused beyond the size cap', async () => {
    const big = await httpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-git-upload-pack-advertisement' });
      res.end(Buffer.alloc(64 * 1024, 'a'));
    });
    const c = await control({ allowPrivateAddresses: true, maxFetchBytes: 4096 });
    const answer = await register(c, `${big.url}/team/api.git`);
    expect(answer.status).toBe(400);
    expect(answer.body.error?.message).toContain('more than 4096 bytes');
  });
});

describe('the data directory', () => {
  it("is the service's alone: database 0600, directories 0700", async () => {
    const c = await control({ gitToken: TOKEN, gitTokenHosts: ['127.0.0.1'], allowPrivateAddresses: true });
    expect((await register(c, repositoryUrl)).status).toBe(201);
    expect(statSync(c.data).mode & 0o777).toBe(0o700);
    expect(statSync(join(c.data, 'control.db')).mode & 0o777).toBe(0o600);
    expect(statSync(join(c.data, 'git-cache')).mode & 0o077).toBe(0);
  });
});

describe('a tree entry named ..', () => {
  it('is refused by name, not an internal error', async () => {
    const local = await createServerRepo();
    try {
      const git = (args: string[], input?: string | Buffer) =>
        execFileSync('git', ['--git-dir', local.bare, '-c', 'user.name=t', '-c', 'user.email=t@t', ...args], {
          ...(input !== undefined ? { input } : {}),
        })
          .toString('utf8')
          .trim();
      // A tree git itself would not write: an entry named `..` beside the folder's files.
      const blob = git(['hash-object', '-w', '--stdin'], 'host file\n');
      const folderTree = execFileSync('git', ['--git-dir', local.bare, 'cat-file', 'tree', `main:${FOLDER}`]);
      const badTree = git(
        ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'],
        Buffer.concat([folderTree, Buffer.from('100644 ..\0'), Buffer.from(blob, 'hex')]),
      );
      const mcp = git(['mktree', '--missing'], `040000 tree ${badTree}\tpets\n`);
      const top = git(['mktree', '--missing'], `040000 tree ${mcp}\tmcp\n`);
      git(['update-ref', 'refs/heads/main', git(['commit-tree', top, '-m', 'dots'])]);
      const c = await control();
      const answer = await register(c, local.bare);
      expect(answer.status, answer.text).toBe(400);
      expect(answer.body.error?.code, answer.text).toBe('FOLDER_INVALID');
      expect(answer.body.error?.message).toContain('an entry named ".."');
    } finally {
      local.cleanup();
    }
  });
});
