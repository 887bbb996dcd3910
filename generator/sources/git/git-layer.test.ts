import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressPolicy } from '../address-policy.js';
import { createTestRepo, type TestRepo } from '../testing/git-test-repo.js';
import {
  changedFiles,
  commitPaths,
  fetchCommitOf,
  listFiles,
  openLocalRepository,
  pushReplaying,
  readFileAt,
  readFilesAt,
  remoteAccess,
  resolveCommit,
} from './index.js';

const BOT = { name: 'github-actions[bot]', email: 'bot@example.test' };
const open = async (dir: string) => ({ ...(await openLocalRepository(dir)), dir });
const loopback = () => remoteAccess({ policy: addressPolicy({ allowPrivate: true }) });

let repo: TestRepo;
beforeAll(() => {
  repo = createTestRepo();
});
afterAll(() => repo.cleanup());

describe('reading a local repository', () => {
  it('lists changed paths, reads a folder and a file at a commit', async () => {
    repo.write({ 'mcp/a/config.yaml': 'x: 1\n', 'mcp/a/Tools/t.yaml': 'name: t\n', 'other.txt': 'o' });
    const base = repo.commit('base');
    repo.write({ 'mcp/a/Tools/t.yaml': 'name: u\n', 'other.txt': null, 'mcp/a/ünï code.md': '\ufeffé\n' });
    const head = repo.commit('head');
    const r = await open(join(repo.dir, 'mcp'));
    expect((await changedFiles(r, base, head)).sort()).toEqual([
      'mcp/a/Tools/t.yaml',
      'mcp/a/ünï code.md',
      'other.txt',
    ]);
    expect(await readFilesAt(r, base, 'mcp/a')).toEqual({
      'config.yaml': 'x: 1\n',
      'Tools/t.yaml': 'name: t\n',
    });
    expect(await readFilesAt(r, 'HEAD', 'mcp/a', (p) => p.endsWith('.md'))).toEqual({
      'ünï code.md': '\ufeffé\n',
    });
    expect(await readFilesAt(r, head, 'missing')).toEqual({});
    expect((await listFiles(r, head)).sort()).toEqual([
      'mcp/a/Tools/t.yaml',
      'mcp/a/config.yaml',
      'mcp/a/ünï code.md',
    ]);
    expect(await listFiles(r, base, 'mcp/a/Tools')).toEqual(['mcp/a/Tools/t.yaml']);
    expect(await readFileAt(r, base, 'other.txt')).toBe('o');
    expect(await readFileAt(r, head, 'other.txt')).toBeUndefined();
    expect(await resolveCommit(r, 'HEAD~1')).toBe(base);
    expect(await resolveCommit(r, `${head.slice(0, 8)}^`)).toBe(base);
    expect(await resolveCommit(r, 'main')).toBe(head);
    await expect(resolveCommit(r, 'nope')).rejects.toThrow(/nope is not a commit/);
    // A submodule (gitlink) inside the folder is not a file: skipped, not an error.
    repo.git('update-index', '--add', '--cacheinfo', `160000,${base},mcp/a/vendored`);
    repo.git('commit', '-q', '-m', 'gitlink');
    expect(Object.keys(await readFilesAt(r, 'HEAD', 'mcp/a')).sort()).toEqual([
      'Tools/t.yaml',
      'config.yaml',
      'ünï code.md',
    ]);
    repo.git('rm', '-q', '--cached', 'mcp/a/vendored');
    repo.git('commit', '-q', '-m', 'drop gitlink');
  });
});

describe('committing a work tree', () => {
  it('commits only the given paths, leaves the work tree clean, and commits nothing when they did not change', async () => {
    repo.write({ 'mcp/a/config.yaml': 'x: 2\n', 'mcp/a/Tools/t.yaml': null, 'elsewhere.txt': 'not mine' });
    repo.write({ 'mcp/a/new/deep.yaml': 'd\n' });
    const r = await open(repo.dir);
    const sha = await commitPaths(r, ['mcp/a'], {
      message: 'chore: test\n\n\n- a: 1   \n\nSvc-Import: true',
      author: BOT,
    });
    expect(sha).toMatch(/^[0-9a-f]{40}$/);
    expect(repo.git('rev-parse', 'HEAD')).toBe(sha);
    expect(repo.git('show', '--name-status', '--format=%an <%ae>', 'HEAD').split('\n')).toEqual([
      'github-actions[bot] <bot@example.test>',
      '',
      'D\tmcp/a/Tools/t.yaml',
      'M\tmcp/a/config.yaml',
      'A\tmcp/a/new/deep.yaml',
    ]);
    // As `git commit -F` stores it.
    expect(repo.git('cat-file', 'commit', 'HEAD').split('\n\n').slice(1).join('\n\n')).toBe(
      'chore: test\n\n- a: 1\n\nSvc-Import: true',
    );
    expect(repo.git('status', '--porcelain')).toBe('?? elsewhere.txt');
    expect(await commitPaths(r, ['mcp/a'], { message: 'again', author: BOT })).toBeUndefined();
  });

  it('stages as git add -A would: ignored files stay out unless tracked, modes and links kept, objects sound', async () => {
    repo.write({
      'mcp/c/.gitignore': '*.log\ntmp/\n',
      'mcp/c/kept.log': 'tracked\n',
      'mcp/c/run.sh': 'echo\n',
    });
    repo.git('add', '-f', 'mcp/c');
    repo.commit('c');
    repo.write({
      'mcp/c/kept.log': 'tracked, changed\n',
      'mcp/c/new.log': 'ignored\n',
      'mcp/c/tmp/deep/x.txt': 'ignored\n',
      'mcp/c/run.sh': 'echo 2\n',
    });
    chmodSync(join(repo.dir, 'mcp/c/run.sh'), 0o755);
    symlinkSync('run.sh', join(repo.dir, 'mcp/c/link'));
    const r = await open(repo.dir);
    await commitPaths(r, ['./mcp/c/'], { message: 'c2', author: BOT });
    expect(repo.git('show', '--name-status', '--format=', 'HEAD').split('\n')).toEqual([
      'M\tmcp/c/kept.log',
      'A\tmcp/c/link',
      'M\tmcp/c/run.sh',
    ]);
    expect(
      repo
        .git('ls-tree', 'HEAD', 'mcp/c/')
        .split('\n')
        .map((l) => l.split(/\s+/)[0]),
    ).toEqual(['100644', '100644', '120000', '100755']);
    expect(repo.git('cat-file', '-p', 'HEAD:mcp/c/link')).toBe('run.sh');
    expect(repo.git('status', '--porcelain', 'mcp/c')).toBe('');
    repo.git('fsck', '--strict');
  });

  it('converts line endings as core.autocrlf asks', async () => {
    repo.git('config', 'core.autocrlf', 'true');
    try {
      repo.write({ 'mcp/d/crlf.txt': 'one\r\ntwo\r\n' });
      await commitPaths(await open(repo.dir), ['mcp/d'], { message: 'd', author: BOT });
      expect(repo.git('show', '--name-status', '--format=', 'HEAD')).toBe('A\tmcp/d/crlf.txt');
      expect(JSON.stringify(repo.git('cat-file', 'blob', 'HEAD:mcp/d/crlf.txt'))).toBe('"one\\ntwo"');
    } finally {
      repo.git('config', '--unset', 'core.autocrlf');
    }
  });
});

describe('fetch and push over smart HTTP', () => {
  const clone = async () => {
    await repo.serve();
    return repo.checkout(mkdtempSync(join(repo.root, 'clone-')));
  };
  const originHead = () =>
    execFileSync('git', ['rev-parse', 'main'], { cwd: repo.origin, encoding: 'utf8' }).trim();

  it('pushes a commit, and replays it on a branch that moved elsewhere', async () => {
    repo.git('push', '-q', '-f', 'origin', 'main');
    const work = await clone();
    const r = await open(work);
    execFileSync('sh', ['-c', 'mkdir -p mcp/b && echo b > mcp/b/config.yaml'], { cwd: work });
    await commitPaths(r, ['mcp/b'], { message: 'first', author: BOT });
    expect(await pushReplaying(r, { remote: 'origin', branch: 'main', access: loopback() })).toEqual({
      rebased: false,
      sha: originHead(),
    });
    // Another push lands on main meanwhile, touching other files.
    repo.git('pull', '-q', '--ff-only', 'origin', 'main');
    repo.write({ 'README.md': 'busy\n' });
    const other = repo.commit('busy');
    repo.git('push', '-q', 'origin', 'main');
    execFileSync('sh', ['-c', 'echo c > mcp/b/config.yaml'], { cwd: work });
    await commitPaths(r, ['mcp/b'], { message: 'second\n\nSvc-Import: true\n', author: BOT });
    const pushed = await pushReplaying(r, { remote: 'origin', branch: 'main', access: loopback() });
    expect(pushed.rebased).toBe(true);
    expect(originHead()).toBe(pushed.sha);
    const log = execFileSync('git', ['log', '-2', '--format=%P %an %s', 'main'], {
      cwd: repo.origin,
      encoding: 'utf8',
    });
    expect(log.split('\n')[0]).toBe(`${other} github-actions[bot] second`);
    expect(
      execFileSync('git', ['show', 'main:mcp/b/config.yaml'], { cwd: repo.origin, encoding: 'utf8' }),
    ).toBe('c\n');
    expect(execFileSync('git', ['show', 'main:README.md'], { cwd: repo.origin, encoding: 'utf8' })).toBe(
      'busy\n',
    );
    // The work tree follows: the tip's file is there, nothing reads as changed.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: work, encoding: 'utf8' })).toBe('');
  });

  it('fails as before when the branch moved in the same files', async () => {
    const work = await clone();
    const r = await open(work);
    execFileSync('sh', ['-c', 'echo mine > mcp/b/config.yaml'], { cwd: work });
    await commitPaths(r, ['mcp/b'], { message: 'mine', author: BOT });
    repo.git('pull', '-q', '--ff-only', 'origin', 'main');
    repo.write({ 'mcp/b/config.yaml': 'theirs\n' });
    const theirs = repo.commit('theirs');
    repo.git('push', '-q', 'origin', 'main');
    await expect(pushReplaying(r, { remote: 'origin', branch: 'main', access: loopback() })).rejects.toThrow(
      'main moved during the run and the re-import conflicts with it; the next push re-imports',
    );
    expect(originHead()).toBe(theirs);
  });

  it('fetches an older commit of a branch into a shallow clone', async () => {
    const old = originHead();
    repo.write({ 'README.md': 'later\n' });
    repo.commit('later');
    repo.write({ 'README.md': 'latest\n' });
    repo.commit('latest');
    repo.git('push', '-q', 'origin', 'main');
    const r = await open(await clone());
    await expect(readFilesAt(r, old, '')).rejects.toThrow(/is not a commit/);
    await fetchCommitOf(r, old, { remote: 'origin', branch: 'main', access: loopback() });
    expect(await readFileAt(r, old, 'README.md')).toBe('busy\n');
    await expect(
      fetchCommitOf(r, 'f'.repeat(40), { remote: 'origin', branch: 'main', access: loopback() }),
    ).rejects.toThrow(/not among the last 1000 commits of main/);
  });

  it('sends a credential only where it is allowed, and only through onAuth', async () => {
    const token = 'ghs_layer_secret';
    const basic = `Basic ${Buffer.from(`x-access-token:${token}`).toString('base64')}`;
    const guarded = createTestRepo();
    try {
      guarded.write({ 'a.txt': 'a' });
      guarded.commit('a');
      guarded.git('push', '-q', 'origin', 'main');
      const url = await guarded.serve({ authorize: (h) => h === basic });
      const bare = mkdtempSync(join(guarded.root, 'cache-'));
      execFileSync('git', ['init', '-q', '--bare', bare]);
      execFileSync('git', ['remote', 'add', 'origin', url], { cwd: bare });
      const fetchWith = (allowed: (u: URL) => boolean) =>
        import('./remote.js').then(({ fetchBranch }) =>
          fetchBranch({
            gitdir: bare,
            remote: { name: 'origin' },
            branch: 'main',
            depth: 1,
            access: remoteAccess({
              policy: addressPolicy({ allowPrivate: true }),
              credential: { token, allowed },
            }),
          }),
        );
      await expect(fetchWith(() => false)).rejects.toMatchObject({ code: 'HttpError' });
      expect(guarded.server()!.requests.every((q) => q.authorization === undefined)).toBe(true);
      expect(await fetchWith((u) => u.origin === new URL(url).origin)).toBe(guarded.git('rev-parse', 'HEAD'));
      expect(guarded.server()!.requests.some((q) => q.authorization === basic)).toBe(true);
    } finally {
      await guarded.cleanup();
    }
  });
});
