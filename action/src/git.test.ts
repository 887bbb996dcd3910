import { execFileSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRepo } from '../../generator/sources/testing/git-test-repo.js';
import { changedFiles, commitPaths, gitAuthEnv, readFilesAt, redact, runGit } from './git.js';

const repo = createTestRepo();
afterAll(() => repo.cleanup());

describe('git helpers on a real repository', () => {
  it('lists changed paths and reads a folder at a commit', async () => {
    repo.write({ 'mcp/a/config.yaml': 'x: 1\n', 'mcp/a/Tools/t.yaml': 'name: t\n', 'other.txt': 'o' });
    const base = repo.commit('base');
    repo.write({ 'mcp/a/Tools/t.yaml': 'name: u\n', 'other.txt': null, 'mcp/a/ünï code.md': 'é\n' });
    const head = repo.commit('head');
    expect((await changedFiles(repo.dir, base, head)).sort()).toEqual([
      'mcp/a/Tools/t.yaml',
      'mcp/a/ünï code.md',
      'other.txt',
    ]);
    expect(await readFilesAt(repo.dir, base, 'mcp/a')).toEqual({
      'config.yaml': 'x: 1\n',
      'Tools/t.yaml': 'name: t\n',
    });
    expect(await readFilesAt(repo.dir, head, 'mcp/a')).toEqual({
      'config.yaml': 'x: 1\n',
      'Tools/t.yaml': 'name: u\n',
      'ünï code.md': 'é\n',
    });
    expect(await readFilesAt(repo.dir, head, 'missing')).toEqual({});
    // A submodule (gitlink) inside the folder is not a file: it is skipped, not an error.
    repo.git('update-index', '--add', '--cacheinfo', `160000,${base},mcp/a/vendored`);
    repo.git('commit', '-q', '-m', 'gitlink');
    expect(Object.keys(await readFilesAt(repo.dir, 'HEAD', 'mcp/a')).sort()).toEqual([
      'Tools/t.yaml',
      'config.yaml',
      'ünï code.md',
    ]);
    repo.git('rm', '-q', '--cached', 'mcp/a/vendored');
    repo.git('commit', '-q', '-m', 'drop gitlink');
  });

  it('commits only the given paths, and nothing when they did not change', async () => {
    repo.write({ 'mcp/a/config.yaml': 'x: 2\n', 'elsewhere.txt': 'not mine' });
    const sha = await commitPaths(repo.dir, ['mcp/a'], 'chore: test\n\nSvc-Import: true\n');
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(repo.git('show', '--name-only', '--format=%an', 'HEAD').split('\n')).toEqual([
      'github-actions[bot]',
      '',
      'mcp/a/config.yaml',
    ]);
    expect(repo.git('status', '--porcelain')).toBe('?? elsewhere.txt');
    expect(await commitPaths(repo.dir, ['mcp/a'], 'again')).toBeUndefined();
  });
});

describe('gitAuthEnv', () => {
  it('sends the token as a basic extraheader, replacing a persisted one, and never on the command line', async () => {
    const seen: (string | string[] | undefined)[] = [];
    const server = createServer((req, res) => {
      seen.push(req.headersDistinct.authorization);
      res.writeHead(404).end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // What actions/checkout persists in .git/config.
      execFileSync('git', ['config', `http.${url}/.extraheader`, 'AUTHORIZATION: basic b2xkOm9sZA=='], {
        cwd: repo.dir,
      });
      const env = gitAuthEnv('ghs_secret', url);
      expect(JSON.stringify(Object.keys(env))).not.toContain('ghs_secret');
      let message = '';
      try {
        await runGit(['ls-remote', `${url}/acme/apis.git`], { cwd: repo.dir, env, secrets: ['ghs_secret'] });
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toContain('git ls-remote failed');
      const expected = `basic ${Buffer.from('x-access-token:ghs_secret').toString('base64')}`;
      expect(seen.length).toBeGreaterThan(0);
      expect(seen.every((h) => JSON.stringify(h) === JSON.stringify([expected]))).toBe(true);
      expect(gitAuthEnv('', url)).toEqual({});
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('redacts secrets from text', () => {
    expect(redact('token abc in abc', ['abc'])).toBe('token [REDACTED] in [REDACTED]');
    // The extraheader git is given carries the token in base64; an error quoting it must not.
    const header = Buffer.from('x-access-token:ghs_secret123456', 'utf8').toString('base64');
    expect(redact(`fatal: header AUTHORIZATION: basic ${header}`, ['ghs_secret123456'])).not.toContain(
      header,
    );
  });
});
