/**
 * A `provider: token` git connection is bound to the URL prefix given when it was made: a
 * config.yaml naming it with a repository elsewhere (pushed by anyone who can push) makes
 * `svc diff` / `svc import` refuse, and the other host never sees the token. A connection made by
 * an older svc (no URL recorded) is refused with how to make it again.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse, stringify } from 'yaml';
import { ConnectionStore } from '../generator/sources/accounts/git-connections.js';
import { makeRepo } from '../generator/sources/testing/git-repo-fixture.js';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { svc } from './helpers/run-cli.js';

const TOKEN = 'glpat-scoped-5b2e9d7c';
const BASIC = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
const SPEC = readFileSync('fixtures/specs/petstore-3.0.yaml', 'utf8');

describe('a token connection', () => {
  let root: string;
  let server: GitHttpServer;
  let other: Server;
  let otherUrl: string;
  const seen: IncomingMessage[] = [];
  let env: Record<string, string>;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-token-scope-'));
    const repo = await makeRepo(root, 'api');
    repo.commit({ 'openapi/petstore.yaml': SPEC });
    server = await startGitHttpServer({ root: join(root, 'repos'), authorize: (a) => a === BASIC });
    // Another host, asking for credentials the way a git host does.
    other = createServer((req, res) => {
      seen.push(req);
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"' }).end();
    });
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', r));
    otherUrl = `http://localhost:${(other.address() as AddressInfo).port}`;
    env = { SVC_CONFIG_DIR: join(root, 'config'), SVC_CACHE_DIR: join(root, 'cache') };
    const connected = await svc(
      ['git', 'connect', 'token', '--id', 'host', '--url', `${server.url}/api.git`],
      {
        cwd: root,
        env: { ...env, SVC_GIT_TOKEN: TOKEN },
      },
    );
    expect(connected.stderr).toBe('');
    const made = await svc(
      [
        'init',
        'f',
        '--name',
        'Pets',
        '--git',
        `${server.url}/api.git`,
        '--ref',
        'main',
        '--path',
        'openapi/petstore.yaml',
        '--connection',
        'host',
      ],
      { cwd: root, env },
    );
    expect(made.stderr).not.toMatch(/^error/m);
    expect(made.code).toBe(0);
  });

  afterAll(async () => {
    other.closeAllConnections();
    await new Promise((r) => other.close(r));
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  const setRepository = (repository: string) => {
    const file = join(root, 'f', 'config.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { source: Record<string, unknown> };
    writeFileSync(file, stringify({ ...config, source: { ...config.source, repository } }));
  };

  test('reads the repository it was made for', async () => {
    const diff = await svc(['diff', 'f'], { cwd: root, env });
    expect(diff.stderr).toBe('');
    expect(diff.code).toBe(0);
  });

  test('is not sent to a repository elsewhere, nor over http to it', async () => {
    for (const repository of [
      `${otherUrl}/api.git`,
      `${server.url}/api.git.evil`,
      `${server.url}/other.git`,
    ]) {
      setRepository(repository);
      for (const command of ['diff', 'import']) {
        const run = await svc([command, 'f'], { cwd: root, env });
        expect(run.code, repository).not.toBe(0);
        expect(run.stderr).toContain(`the token connection "host" is for ${server.url}/api.git`);
        expect(run.stderr).not.toContain(TOKEN);
      }
    }
    expect(seen.length).toBe(0);
    setRepository(`${server.url}/api.git`);
  });

  test('made by an older svc (no URL) is refused with how to make it again', async () => {
    const store = await ConnectionStore.open(env.SVC_CONFIG_DIR!);
    await store.put({ id: 'old', provider: 'token', token: store.seal(TOKEN) });
    const file = join(root, 'f', 'config.yaml');
    const config = parse(readFileSync(file, 'utf8')) as { source: Record<string, unknown> };
    writeFileSync(file, stringify({ ...config, source: { ...config.source, connection: 'old' } }));
    const run = await svc(['diff', 'f'], { cwd: root, env });
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('bound to no URL');
    expect(run.stderr).toContain('svc git connect token --id old --url');
  });

  test('needs --url, https unless the host is loopback', async () => {
    const none = await svc(['git', 'connect', 'token', '--id', 'x'], {
      cwd: root,
      env: { ...env, SVC_GIT_TOKEN: TOKEN },
    });
    expect(none.stderr).toContain('--url');
    const plain = await svc(
      ['git', 'connect', 'token', '--id', 'x', '--url', 'http://git.example.com/team'],
      {
        cwd: root,
        env: { ...env, SVC_GIT_TOKEN: TOKEN },
      },
    );
    expect(plain.code).not.toBe(0);
    expect(plain.stderr).toContain('https');
  });
});
