/**
 * svc init/import/diff with a git repository source and a raw-URL source, end to end: real
 * repositories made with git, served by `git http-backend` on loopback, read by isomorphic-git.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { makeRepo, type RepoFixture } from '../generator/sources/testing/git-repo-fixture.js';
import { svc } from './helpers/run-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

const TOKEN = 'glpat-secret-7d1e0c9a';
const SPEC = readFileSync('fixtures/specs/petstore-3.0.yaml', 'utf8');
const WITH_ORDERS = SPEC.replace(
  /\npaths:\n/,
  '\npaths:\n  /orders:\n    get:\n      operationId: listOrders\n      summary: List orders\n      responses:\n        "200":\n          description: ok\n',
);

/** Every file under dir, path → text (relative, '/' separators). */
function tree(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const full = join(d, name);
      if (statSync(full).isDirectory()) walk(full);
      else out[relative(dir, full).split('\\').join('/')] = readFileSync(full, 'utf8');
    }
  };
  walk(dir);
  return out;
}

describe('git sources', () => {
  let root: string;
  let server: GitHttpServer;
  let repo: RepoFixture;
  let first: string;
  let env: Record<string, string>;
  const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-git-import-'));
    repo = await makeRepo(root, 'api');
    await repo.copyIn('fixtures/content', 'mcp');
    first = repo.commit({ 'openapi/petstore.yaml': SPEC });
    server = await startGitHttpServer({ root: join(root, 'repos'), authorize: (a) => a === basic });
    env = { SVC_GIT_TOKEN: TOKEN, SVC_CACHE_DIR: join(root, 'cache') };
  });

  afterAll(async () => {
    await server.close();
    await rm(root, { recursive: true, force: true });
  });

  test('init from a branch imports the document and content, recording the commit; same folder as a file import', async () => {
    const url = `${server.url}/api.git`;
    const made = await svc(
      [
        'init',
        'g',
        '--name',
        'Pets',
        '--server-id',
        'pets',
        '--git',
        url,
        '--ref',
        'main',
        '--path',
        'openapi/petstore.yaml',
        '--content',
        'mcp',
      ],
      { cwd: root, env },
    );
    expect(made.stderr).not.toMatch(/^error/m);
    expect(made.code).toBe(0);
    const config = parse(readFileSync(join(root, 'g/config.yaml'), 'utf8'));
    expect(config.source).toEqual({
      kind: 'git',
      provider: 'git',
      repository: url,
      branch: 'main',
      path: 'openapi/petstore.yaml',
      contentDir: 'mcp',
      commit: first,
    });
    const record = JSON.parse(readFileSync(join(root, 'g/.svc/history/000001.json'), 'utf8'));
    expect(record.revision.gitCommit).toBe(first);
    expect(record.source).toEqual({ location: `git+${url}#main:openapi/petstore.yaml`, contentDir: 'mcp' });

    // The same document and content from files: the same folder apart from the source record.
    await cp(join(repo.work, 'openapi/petstore.yaml'), join(root, 'petstore.yaml'));
    await cp(join(repo.work, 'mcp'), join(root, 'content'), { recursive: true });
    const fromFile = await svc(
      [
        'init',
        'f',
        '--name',
        'Pets',
        '--server-id',
        'pets',
        '--openapi',
        'petstore.yaml',
        '--content',
        'content',
      ],
      { cwd: root, env: {} },
    );
    expect(fromFile.code).toBe(0);
    const g = tree(join(root, 'g'));
    const f = tree(join(root, 'f'));
    const sourceFree = (files: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(files).filter(
          // The fingerprint of the next import's inputs names the source too (its origin, the commit).
          ([p]) => p !== 'config.yaml' && p !== '.svc/unchanged.json' && !p.startsWith('.svc/history/'),
        ),
      );
    expect(Object.keys(g).filter((p) => p.startsWith('Skills/')).length).toBeGreaterThan(0);
    expect(sourceFree(g)).toEqual(sourceFree(f));
    const fConfig = parse(f['config.yaml']!);
    expect({ ...config, source: null, app: { ...config.app, provider: null } }).toEqual({
      ...fConfig,
      source: null,
      app: { ...fConfig.app, provider: null },
    });
  });

  test('re-import of the unchanged commit writes nothing but history (replayed from the fingerprint init recorded)', async () => {
    const before = tree(join(root, 'g'));
    const again = await svc(['import', 'g'], { cwd: root, env });
    expect(again.code).toBe(0);
    const after = tree(join(root, 'g'));
    const changed = Object.keys(after).filter((p) => before[p] !== after[p]);
    expect(changed).toEqual(['.svc/history/000002.json']);
    expect(Object.keys(before).every((p) => p in after)).toBe(true);
    const history = await svc(['history', 'g'], { cwd: root, env });
    expect(history.stdout.split('\n').filter((l) => l.includes(`commit ${first.slice(0, 12)}`))).toHaveLength(
      2,
    );
  });

  test('import re-reads the branch head; diff --ref previews another commit, writing nothing', async () => {
    const second = repo.commit({ 'openapi/petstore.yaml': WITH_ORDERS }, 'add orders');
    const preview = await svc(['diff', 'g', '--format', 'json'], { cwd: root, env });
    expect(preview.code).toBe(0);
    expect(JSON.parse(preview.stdout).endpoints).toContainEqual(
      expect.objectContaining({ kind: 'added', path: '/orders' }),
    );
    expect(parse(readFileSync(join(root, 'g/config.yaml'), 'utf8')).source.commit).toBe(first);

    const imported = await svc(['import', 'g'], { cwd: root, env });
    expect(imported.code).toBe(0);
    expect(parse(readFileSync(join(root, 'g/config.yaml'), 'utf8')).source.commit).toBe(second);
    const record = JSON.parse(readFileSync(join(root, 'g/.svc/history/000003.json'), 'utf8'));
    expect(record.revision.gitCommit).toBe(second);

    const before = tree(join(root, 'g'));
    const back = await svc(['diff', 'g', '--ref', first.slice(0, 12), '--format', 'json'], {
      cwd: root,
      env,
    });
    expect(back.code).toBe(0);
    expect(JSON.parse(back.stdout).endpoints).toContainEqual(
      expect.objectContaining({ kind: 'removed', path: '/orders' }),
    );
    expect(tree(join(root, 'g'))).toEqual(before);
  });

  test('without the token the import fails closed and says what to set', async () => {
    const before = tree(join(root, 'g'));
    const denied = await svc(['import', 'g'], { cwd: root, env: { SVC_CACHE_DIR: join(root, 'cache2') } });
    expect(denied.code).not.toBe(0);
    expect(denied.stderr).toMatch(/SVC_GIT_TOKEN/);
    const after = tree(join(root, 'g'));
    expect(Object.keys(after).filter((p) => before[p] !== after[p])).toEqual(['.svc/history/000004.json']);
  });

  test('the token is in no file of the folder or the cache, nor in any output', async () => {
    const outputs: string[] = [];
    for (const argv of [
      ['import', 'g'],
      ['diff', 'g'],
      ['history', 'g'],
    ]) {
      const run = await svc(argv, { cwd: root, env });
      outputs.push(run.stdout, run.stderr);
    }
    const files = { ...tree(join(root, 'g')), ...tree(join(root, 'cache')) };
    const basic64 = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    for (const [path, text] of Object.entries(files)) {
      expect(text.includes(TOKEN) || text.includes(basic64), path).toBe(false);
    }
    for (const text of outputs) expect(text).not.toContain(TOKEN);
  });

  test('a token kept as a connection (sealed) reads the repository without SVC_GIT_TOKEN', async () => {
    const config = { SVC_CONFIG_DIR: join(root, 'svc-config'), SVC_CACHE_DIR: join(root, 'cache-t') };
    const connected = await svc(['git', 'connect', 'token', '--id', 'host', '--url', server.url], {
      cwd: root,
      env: { ...config, SVC_GIT_TOKEN: TOKEN },
    });
    expect(connected.code).toBe(0);
    const made = await svc(
      [
        'init',
        't',
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
      { cwd: root, env: config },
    );
    expect(made.stderr).not.toMatch(/^error/m);
    expect(made.code).toBe(0);
    expect(parse(readFileSync(join(root, 't/config.yaml'), 'utf8')).source).toMatchObject({
      provider: 'git',
      repository: `${server.url}/api.git`,
      connection: 'host',
    });
    for (const [path, text] of Object.entries({
      ...tree(join(root, 'svc-config')),
      ...tree(join(root, 't')),
    }))
      expect(text.includes(TOKEN), path).toBe(false);
    const listed = await svc(['git', 'connections'], { cwd: root, env: config });
    expect(listed.stdout).toBe(`host  provider=token  username=x-access-token  url=${server.url}\n`);
  });

  test('a URL with credentials is refused before anything is written', async () => {
    const refused = await svc(
      [
        'init',
        'x',
        '--name',
        'X',
        '--git',
        'http://u:p@127.0.0.1:1/api.git',
        '--ref',
        'main',
        '--path',
        'a.yaml',
      ],
      { cwd: root, env },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/SVC_GIT_TOKEN/);
    expect(() => statSync(join(root, 'x'))).toThrow();
  });
});

describe('other git (raw URL)', () => {
  let root: string;
  let raw: StaticServer;
  const TOKEN_RAW = 'raw-secret-4be1';

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-raw-import-'));
    raw = await serveRoutes({
      '/raw/release%2F2/specs/petstore.yaml': (req, res) => {
        if (req.headers.authorization !== `Bearer ${TOKEN_RAW}`) res.writeHead(401).end('no');
        else res.writeHead(200, { 'content-type': 'application/yaml' }).end(SPEC);
      },
    });
  });

  afterAll(async () => {
    await raw.close();
    await rm(root, { recursive: true, force: true });
  });

  test('imports tools through the template with a Bearer token, notes "tools only", writes no token', async () => {
    const template = `${raw.url}/raw/{ref}/{path}`;
    const made = await svc(
      [
        'init',
        'r',
        '--name',
        'Pets',
        '--raw-url',
        template,
        '--ref',
        'release/2',
        '--path',
        'specs/petstore.yaml',
      ],
      { cwd: root, env: { SVC_GIT_TOKEN: TOKEN_RAW } },
    );
    expect(made.stderr).not.toMatch(/^error/m);
    expect(made.code).toBe(0);
    expect(made.stdout).toMatch(/Resources.*tools only: a raw URL cannot list content directories/);
    const config = parse(await readFile(join(root, 'r/config.yaml'), 'utf8'));
    expect(config.source).toEqual({
      kind: 'git',
      provider: 'raw',
      rawUrlTemplate: template,
      branch: 'release/2',
      path: 'specs/petstore.yaml',
    });
    expect(Object.keys(tree(join(root, 'r'))).some((p) => /^Tools\/.+\.yaml$/.test(p))).toBe(true);
    for (const [path, text] of Object.entries(tree(join(root, 'r'))))
      expect(text, path).not.toContain(TOKEN_RAW);
    expect(made.stdout).not.toContain(TOKEN_RAW);

    const again = await svc(['import', 'r'], { cwd: root, env: { SVC_GIT_TOKEN: TOKEN_RAW } });
    expect(again.code).toBe(0);
  });

  test('a raw URL reads its Bearer token from a token connection', async () => {
    const config = { SVC_CONFIG_DIR: join(root, 'svc-config') };
    expect(
      (
        await svc(['git', 'connect', 'token', '--id', 'raw', '--url', `${raw.url}/raw`], {
          cwd: root,
          env: { ...config, SVC_GIT_TOKEN: TOKEN_RAW },
        })
      ).code,
    ).toBe(0);
    const made = await svc(
      [
        'init',
        'rc',
        '--name',
        'Pets',
        '--raw-url',
        `${raw.url}/raw/{ref}/{path}`,
        '--ref',
        'release/2',
        '--path',
        'specs/petstore.yaml',
        '--connection',
        'raw',
      ],
      { cwd: root, env: config },
    );
    expect(made.stderr).not.toMatch(/^error/m);
    expect(made.code).toBe(0);
    for (const [path, text] of Object.entries({
      ...tree(join(root, 'svc-config')),
      ...tree(join(root, 'rc')),
    }))
      expect(text.includes(TOKEN_RAW), path).toBe(false);
  });

  test('content directories are refused for a raw URL', async () => {
    const refused = await svc(
      [
        'init',
        'r2',
        '--name',
        'X',
        '--raw-url',
        `${raw.url}/raw/{ref}/{path}`,
        '--ref',
        'main',
        '--path',
        'a.yaml',
        '--content',
        'mcp',
      ],
      { cwd: root, env: {} },
    );
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/tools only/);
  });
});
