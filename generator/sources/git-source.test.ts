import { statSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from './testing/git-http-server.js';
import { makeRepo, type RepoFixture } from './testing/git-repo-fixture.js';
import { gitCacheDir, readGitSource } from './git-source.js';

const TOKEN = 'ghs_test_token_5f2c';
const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;

describe('readGitSource (a real smart-HTTP server on loopback)', () => {
  let root: string;
  let server: GitHttpServer;
  let repo: RepoFixture;
  let first: string;
  const spec = () => ({ url: `${server.url}/api.git`, branch: 'main', path: 'spec/openapi.yaml' });

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-git-source-'));
    repo = await makeRepo(root, 'api');
    await repo.copyIn('fixtures/content', 'mcp');
    first = repo.commit({ 'spec/openapi.yaml': await readFile('fixtures/specs/petstore-3.0.yaml', 'utf8') });
    await makeRepo(root, 'private').then((r) => r.commit({ 'openapi.yaml': 'openapi: 3.0.3\n' }));
    server = await startGitHttpServer({
      root: join(root, 'repos'),
      authorize: (a) => !server.requests.at(-1)?.path.startsWith('/private.git') || a === basic,
    });
  });

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test('reads the document and the content directories of the branch head, with its commit', async () => {
    const read = await readGitSource({ ...spec(), contentDir: 'mcp' }, { cacheDir: join(root, 'cache') });
    expect(read.commit).toBe(first);
    expect(read.document.text).toBe(await readFile('fixtures/specs/petstore-3.0.yaml', 'utf8'));
    expect(read.document.origin).toBe(`git+${server.url}/api.git#${first}:spec/openapi.yaml`);
    // The same files, in the same order, as the disk reader finds in the checkout.
    const { readContentDir } = await import('./content-source.js');
    expect(await read.readContent()).toEqual(await readContentDir('fixtures/content'));
    // A shallow fetch of the one branch: depth 1 was asked for.
    const uploads = server.requests.filter((r) => r.path.endsWith('git-upload-pack') && r.method === 'POST');
    expect(uploads.length).toBeGreaterThan(0);
  });

  test('re-reads the new head after a push, and an older commit on request', async () => {
    const second = repo.commit({
      'spec/openapi.yaml': 'openapi: 3.0.3\ninfo: {title: T, version: "2"}\npaths: {}\n',
    });
    const cacheDir = join(root, 'cache');
    const head = await readGitSource(spec(), { cacheDir });
    expect(head.commit).toBe(second);
    expect(head.document.text).toContain('version: "2"');
    const old = await readGitSource(spec(), { cacheDir, ref: first.slice(0, 10) });
    expect(old.commit).toBe(first);
    expect(old.document.text).toContain('A small pet store');
    // A fresh cache has only the head (depth 1): the older commit is fetched by deepening.
    const fresh = await readGitSource(spec(), { cacheDir: join(root, 'fresh'), ref: first });
    expect(fresh.commit).toBe(first);
  });

  test('sends the token only through the Basic challenge; without it the error says what to set', async () => {
    const url = `${server.url}/private.git`;
    await expect(
      readGitSource({ url, branch: 'main', path: 'openapi.yaml' }, { cacheDir: join(root, 'c2') }),
    ).rejects.toMatchObject({
      code: 'SOURCE_UNREACHABLE',
      message: expect.stringContaining('SVC_GIT_TOKEN'),
    });
    const read = await readGitSource(
      { url, branch: 'main', path: 'openapi.yaml' },
      { cacheDir: join(root, 'c2'), token: TOKEN },
    );
    expect(read.document.text).toBe('openapi: 3.0.3\n');
    await expect(
      readGitSource(
        { url, branch: 'main', path: 'openapi.yaml' },
        { cacheDir: join(root, 'c3'), token: 'wrong' },
      ),
    ).rejects.toMatchObject({
      code: 'SOURCE_UNREACHABLE',
      message: expect.stringContaining('refused the token'),
    });
  });

  test('a missing file, branch or commit, and a URL with credentials, are clear errors', async () => {
    const cacheDir = join(root, 'cache');
    await expect(readGitSource({ ...spec(), path: 'nope.yaml' }, { cacheDir })).rejects.toMatchObject({
      code: 'SOURCE_NOT_FOUND',
      place: { file: 'nope.yaml' },
    });
    await expect(readGitSource({ ...spec(), branch: 'nope' }, { cacheDir })).rejects.toMatchObject({
      code: 'SOURCE_NOT_FOUND',
    });
    await expect(readGitSource(spec(), { cacheDir, ref: 'f'.repeat(40) })).rejects.toMatchObject({
      code: 'SOURCE_NOT_FOUND',
    });
    const noDir = await readGitSource({ ...spec(), contentDir: 'no-such-dir' }, { cacheDir });
    await expect(noDir.readContent()).rejects.toMatchObject({
      code: 'SOURCE_NOT_FOUND',
    });
    await expect(
      readGitSource({ ...spec(), url: 'http://u:p@127.0.0.1:1/api.git' }, { cacheDir }),
    ).rejects.toMatchObject({ code: 'USAGE' });
  });

  test('a symbolic link in a content directory is refused, as on disk', async () => {
    await repo.link('mcp/Skills/escape.md', '../../../etc/passwd');
    const read = await readGitSource({ ...spec(), contentDir: 'mcp' }, { cacheDir: join(root, 'cache') });
    await expect(read.readContent()).rejects.toMatchObject({
      code: 'CONTENT_PATH_UNSAFE',
      place: { file: 'Skills/escape.md' },
    });
    repo.commit({ 'mcp/Skills/escape.md': null });
  });

  test('imports running at once share the cache safely', async () => {
    const cacheDir = join(root, 'shared');
    const reads = await Promise.all(
      Array.from({ length: 6 }, () => readGitSource({ ...spec(), contentDir: 'mcp' }, { cacheDir })),
    );
    const commits = new Set(reads.map((r) => r.commit));
    expect(commits.size).toBe(1);
    for (const read of reads) expect((await read.readContent()).length).toBeGreaterThan(5);
  });

  test("the default cache is the user's own (mode 0700), never a shared directory as it is", async () => {
    const home = join(root, 'home');
    const dir = await gitCacheDir({ HOME: home });
    expect(dir).toBe(join(home, '.cache', 'svc', 'git'));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(await gitCacheDir({ XDG_CACHE_HOME: join(root, 'xdg'), HOME: home })).toBe(
      join(root, 'xdg', 'svc', 'git'),
    );
    const fallback = await gitCacheDir({});
    expect(fallback).not.toBe(join(tmpdir(), 'svc-git-cache'));
    expect(statSync(fallback).mode & 0o077).toBe(0);
  });

  test('SVC_CACHE_DIR names the cache; "off" (which turns off the schema check cache) leaves the default', async () => {
    const home = join(root, 'home-off');
    expect(await gitCacheDir({ SVC_CACHE_DIR: join(root, 'mine'), HOME: home })).toBe(join(root, 'mine'));
    expect(await gitCacheDir({ SVC_CACHE_DIR: 'off', HOME: home })).toBe(join(home, '.cache', 'svc', 'git'));
  });

  test('a fetch bringing more than the limit stops with SOURCE_TOO_LARGE', async () => {
    await expect(
      readGitSource(spec(), { cacheDir: join(root, 'capped'), maxFetchBytes: 2_000 }),
    ).rejects.toMatchObject({ code: 'SOURCE_TOO_LARGE', place: { url: spec().url } });
  });
});
