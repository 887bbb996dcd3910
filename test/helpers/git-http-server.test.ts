import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import http from 'isomorphic-git/http/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from './git-http-server.js';

const run = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    cwd,
    encoding: 'utf8',
  });

describe('the loopback smart-HTTP git server', () => {
  let dir: string;
  let server: GitHttpServer;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-git-http-'));
    const work = join(dir, 'work');
    fs.mkdirSync(work);
    run(work, 'init', '-q', '-b', 'main');
    await writeFile(join(work, 'openapi.yaml'), 'openapi: 3.0.3\n');
    run(work, 'add', '.');
    run(work, 'commit', '-q', '-m', 'first');
    fs.mkdirSync(join(dir, 'repos', 'team'), { recursive: true });
    run(dir, 'clone', '-q', '--bare', work, join(dir, 'repos', 'team', 'api.git'));
    server = await startGitHttpServer({
      root: join(dir, 'repos'),
      authorize: (authorization) =>
        authorization === `Basic ${Buffer.from('x-access-token:t0k').toString('base64')}`,
    });
  });

  afterAll(async () => {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('serves a shallow clone to isomorphic-git and takes a push back', async () => {
    const clone = join(dir, 'clone');
    const onAuth = () => ({ username: 'x-access-token', password: 't0k' });
    await git.clone({
      fs,
      http,
      dir: clone,
      url: `${server.url}/team/api.git`,
      ref: 'main',
      singleBranch: true,
      depth: 1,
      onAuth,
    });
    expect(await readFile(join(clone, 'openapi.yaml'), 'utf8')).toBe('openapi: 3.0.3\n');

    await writeFile(join(clone, 'openapi.yaml'), 'openapi: 3.1.0\n');
    await git.add({ fs, dir: clone, filepath: 'openapi.yaml' });
    const sha = await git.commit({
      fs,
      dir: clone,
      message: 'second',
      author: { name: 't', email: 't@example.test' },
    });
    await git.push({ fs, http, dir: clone, url: `${server.url}/team/api.git`, ref: 'main', onAuth });
    expect(run(join(dir, 'repos', 'team', 'api.git'), 'rev-parse', 'main').trim()).toBe(sha);
  });

  it('refuses a request without the credential', async () => {
    await expect(git.getRemoteInfo({ http, url: `${server.url}/team/api.git` })).rejects.toThrow(/401/);
    expect(server.requests.some((r) => r.authorization === undefined)).toBe(true);
  });
});
