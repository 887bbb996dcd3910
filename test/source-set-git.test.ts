/**
 * `svc source set` with a git repository or raw-URL source (spec 3.3): the new source is read
 * first over real smart HTTP (nothing changes when it cannot be); OpenAPI → git is a provider
 * change (--yes, tools/history/OAuth go); git → git with another branch or path is a re-import
 * that keeps curation; a raw URL template works the same way.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFolder, readFolder } from '../folder/index.js';
import { makeRepo } from '../generator/sources/testing/git-repo-fixture.js';
import { renderConfig } from '../generator/render/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { bubbleSwagger, newApp, startPlatform } from './helpers/app-builder-platform.js';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { svc } from './helpers/run-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

const V1 = readFileSync('fixtures/reimport/petstore-v1.yaml', 'utf8');
const V2 = readFileSync('fixtures/reimport/petstore-v2.yaml', 'utf8');
const TOKEN = 'glpat-source-set-51c0';
const oauth = {
  authorizeUrl: 'https://idp.example/authorize',
  tokenUrl: 'https://idp.example/token',
  scopes: ['read'],
};

let root: string;
let server: GitHttpServer;
let raw: StaticServer;
let env: Record<string, string>;
let repoUrl: string;

async function configOf(dir: string): Promise<SvcConfig> {
  const loaded = loadFolder(await readFolder(dir));
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  return loaded.folder.config;
}

const tools = async (dir: string) =>
  Object.keys(await readFolder(dir)).filter((p) => /^Tools\/.*\.yaml$/.test(p));

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'svc-source-set-git-'));
  const repo = await makeRepo(root, 'api');
  repo.commit({ 'openapi/v1.yaml': V1, 'openapi/v2.yaml': V2, 'mcp/Docs/intro.md': '# Intro\n\nHello.\n' });
  const basic = `Basic ${Buffer.from(`x-access-token:${TOKEN}`).toString('base64')}`;
  server = await startGitHttpServer({ root: path.join(root, 'repos'), authorize: (a) => a === basic });
  repoUrl = `${server.url}/api.git`;
  raw = await serveRoutes({
    '/raw/main/v1.yaml': (req, res) => {
      if (req.headers.authorization !== `Bearer ${TOKEN}`) res.writeHead(401).end('no');
      else res.writeHead(200, { 'content-type': 'application/yaml' }).end(V1);
    },
  });
  env = { SVC_GIT_TOKEN: TOKEN, SVC_CACHE_DIR: path.join(root, 'cache') };
  await writeFile(path.join(root, 'v1.yaml'), V1);
});

afterAll(async () => {
  await server.close();
  await raw.close();
  await rm(root, { recursive: true, force: true });
});

describe('svc source set --git / --raw-url', () => {
  it('OpenAPI → git: fails closed, needs --yes, then re-imports from the repository; git → git keeps curation', async () => {
    expect(
      (
        await svc(['init', 'g', '--name', 'Pets', '--openapi', 'v1.yaml', '--auth', 'user_oauth'], {
          cwd: root,
          env,
        })
      ).code,
    ).toBe(0);
    const dir = path.join(root, 'g');
    await writeFile(path.join(dir, 'config.yaml'), renderConfig({ ...(await configOf(dir)), oauth }));
    const before = await readFolder(dir);

    // Unreachable branch, a missing file, a wrong token: nothing changes, exit 3.
    for (const [args, e] of [
      [['--git', repoUrl, '--ref', 'nope', '--path', 'openapi/v1.yaml'], env],
      [['--git', repoUrl, '--ref', 'main', '--path', 'openapi/missing.yaml'], env],
      [['--git', repoUrl, '--ref', 'main', '--path', 'openapi/v1.yaml'], { ...env, SVC_GIT_TOKEN: 'wrong' }],
    ] as const) {
      const run = await svc(['source', 'set', 'g', ...args, '--yes'], { cwd: root, env: e });
      expect(run.code, run.stderr).toBe(3);
      expect(await readFolder(dir)).toEqual(before);
    }

    const gitArgs = ['--git', repoUrl, '--ref', 'main', '--path', 'openapi/v1.yaml', '--content', 'mcp'];
    const asked = await svc(['source', 'set', 'g', ...gitArgs], { cwd: root, env });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('from openapi to git deletes');
    expect(asked.stderr).toContain('the OAuth configuration');
    expect(await readFolder(dir)).toEqual(before);

    const run = await svc(['source', 'set', 'g', ...gitArgs, '--yes'], { cwd: root, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const config = await configOf(dir);
    expect(config.app.provider).toBe('git');
    expect(config.source).toMatchObject({
      kind: 'git',
      provider: 'git',
      repository: repoUrl,
      branch: 'main',
      path: 'openapi/v1.yaml',
      contentDir: 'mcp',
    });
    expect(config.oauth).toBeUndefined();
    const files = await readFolder(dir);
    expect(Object.keys(files)).toContain('Docs/intro.md');
    expect(Object.keys(files).filter((p) => p.startsWith('.svc/history/'))).toHaveLength(1);
    for (const [p, text] of Object.entries(files)) expect(text, p).not.toContain(TOKEN);

    // git → git, another path: the same provider, a re-import that keeps the enabled flag and
    // (without --content) the content directory.
    const tool = path.join(dir, 'Tools', 'findPetsByStatus.yaml');
    await writeFile(tool, (await readFile(tool, 'utf8')).replace('enabled: false', 'enabled: true'));
    const moved = await svc(
      ['source', 'set', 'g', '--git', repoUrl, '--ref', 'main', '--path', 'openapi/v2.yaml'],
      { cwd: root, env },
    );
    expect(moved.stderr).toBe('');
    expect(moved.code).toBe(0);
    expect((await configOf(dir)).source).toMatchObject({ path: 'openapi/v2.yaml', contentDir: 'mcp' });
    expect(Object.keys(await readFolder(dir))).toContain('Docs/intro.md');
    expect(await readFile(tool, 'utf8')).toContain('enabled: true');
    expect(await tools(dir)).toContain('Tools/getPetHistory.yaml');

    // Published: refused, nothing changes.
    expect((await svc(['publish', 'g'], { cwd: root, env })).code).toBe(0);
    const published = await readFolder(dir);
    const refused = await svc(
      ['source', 'set', 'g', '--git', repoUrl, '--ref', 'main', '--path', 'openapi/v1.yaml'],
      { cwd: root, env },
    );
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('PUBLISHED');
    expect(await readFolder(dir)).toEqual(published);
  });

  it('OpenAPI → raw URL template: tools only, the token is never written', async () => {
    expect(
      (await svc(['init', 'r', '--name', 'Pets', '--openapi', 'v1.yaml'], { cwd: root, env })).code,
    ).toBe(0);
    const dir = path.join(root, 'r');
    const template = `${raw.url}/raw/{ref}/{path}`;
    const run = await svc(
      ['source', 'set', 'r', '--raw-url', template, '--ref', 'main', '--path', 'v1.yaml', '--yes'],
      {
        cwd: root,
        env,
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect((await configOf(dir)).source).toEqual({
      kind: 'git',
      provider: 'raw',
      rawUrlTemplate: template,
      branch: 'main',
      path: 'v1.yaml',
    });
    expect((await tools(dir)).length).toBeGreaterThan(0);
    for (const [p, text] of Object.entries(await readFolder(dir))) expect(text, p).not.toContain(TOKEN);
  });

  it('an app-builder app in branch folders → git: one server in the app folder, read from the repository', async () => {
    const platform = await startPlatform();
    try {
      const doc = bubbleSwagger({
        host: 'gx.bubbleapps.io',
        basePath: '/api/1.1',
        types: ['product'],
        workflows: [],
      });
      platform.apps.set('gx', newApp({ live: doc, main: doc }));
      const withPlatform = { ...env, SVC_APP_BUILDER_ORIGIN: platform.origin };
      const made = await svc(['init', 'gx', '--name', 'Gx', '--app-builder', 'gx'], {
        cwd: root,
        env: withPlatform,
      });
      expect(made.code).toBe(0);
      const run = await svc(
        ['source', 'set', 'gx', '--git', repoUrl, '--ref', 'main', '--path', 'openapi/v1.yaml', '--yes'],
        { cwd: root, env: withPlatform },
      );
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const app = path.join(root, 'gx');
      expect(existsSync(path.join(app, 'live'))).toBe(false);
      expect(existsSync(path.join(app, 'main'))).toBe(false);
      const config = await configOf(app);
      expect(config.app.provider).toBe('git');
      expect(config.server.id).toBe('gx');
      expect(config.source).toMatchObject({ kind: 'git', repository: repoUrl, path: 'openapi/v1.yaml' });
      expect(await tools(app)).toContain('Tools/findPetsByStatus.yaml');
    } finally {
      await platform.close();
    }
  });
});
