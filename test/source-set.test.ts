/**
 * `svc source set` (spec 3.3, 4.5.5): the new source is checked first and nothing changes when
 * it is unreachable; a published server is refused; the same provider re-imports keeping
 * curation; a provider change says what goes, needs --yes, deletes tools and history, resets the
 * OAuth configuration and imports from the new source (an app-builder one once verified).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFolder, readFolder } from '../folder/index.js';
import { type TreeSnapshot, treeSnapshot } from '../folder/testing/tree-snapshot.js';
import { renderConfig } from '../generator/render/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { bubbleSwagger, newApp, type Platform, startPlatform } from './helpers/app-builder-platform.js';
import { bundleEntry } from './helpers/bundle-entry.js';
import { svc } from './helpers/run-cli.js';

const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'reimport');
let platform: Platform;
let root: string;
let env: Record<string, string>;

async function configOf(dir: string): Promise<SvcConfig> {
  const loaded = loadFolder(await readFolder(dir));
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  return loaded.folder.config;
}

async function setConfig(dir: string, change: (c: SvcConfig) => SvcConfig): Promise<void> {
  await writeFile(path.join(dir, 'config.yaml'), renderConfig(change(await configOf(dir))));
}

async function enable(dir: string, tool: string): Promise<void> {
  const file = path.join(dir, 'Tools', `${tool}.yaml`);
  await writeFile(file, (await readFile(file, 'utf8')).replace('enabled: false', 'enabled: true'));
}

const oauth = {
  authorizeUrl: 'https://idp.example/authorize',
  tokenUrl: 'https://idp.example/token',
  scopes: ['read'],
};

/** A fresh OpenAPI folder from petstore v1, with user_oauth configured and one tool enabled. */
async function petsFolder(name: string): Promise<string> {
  const run = await svc(['init', name, '--name', 'Pets', '--openapi', 'v1.yaml', '--auth', 'user_oauth'], {
    cwd: root,
    env,
  });
  expect(run.code).toBe(0);
  const dir = path.join(root, name);
  await setConfig(dir, (c) => ({ ...c, oauth }));
  await enable(dir, 'findPetsByStatus');
  return dir;
}

/**
 * An OpenAPI document over HTTP that is served once (svc source set's check reads it) and then
 * answers 500: the import that follows fails, after the check said the source was fine.
 */
async function flakyDocument(text: string): Promise<{ url: string; close: () => Promise<void> }> {
  let served = 0;
  const server: Server = createServer((_req, res) => {
    if (served++ === 0) res.writeHead(200, { 'content-type': 'application/yaml' }).end(text);
    else res.writeHead(500).end('upstream broke');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/openapi.yaml`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** An app made by `svc init --app-builder` in live/ and main/, with files of the user's in both. */
async function appWithUserFiles(id: string): Promise<string> {
  const doc = bubbleSwagger({
    host: `${id}.bubbleapps.io`,
    basePath: '/api/1.1',
    types: ['order'],
    workflows: [],
  });
  platform.apps.set(id, newApp({ live: doc, main: doc }));
  expect((await svc(['init', id, '--name', 'App', '--app-builder', id], { cwd: root, env })).code).toBe(0);
  const app = path.join(root, id);
  const put = async (rel: string, bytes: string | Buffer, mode = 0o644) => {
    const file = path.join(app, ...rel.split('/'));
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, bytes);
    await chmod(file, mode);
  };
  await put('live/scripts/deploy.sh', '#!/bin/sh\necho deploy\n', 0o755);
  await put('live/Prompts/greet.md', '---\ntitle: Greet\ndescription: Greets\n---\nHello\n');
  await put('live/assets/logo.bin', Buffer.from([0, 255, 254, 1, 128, 10]));
  await put('live/private.key', 'not for others\n', 0o600);
  await put('main/notes/deep/er/plan.txt', 'step 1\n');
  await put('main/run.sh', '#!/bin/sh\nexit 0\n', 0o750);
  await mkdir(path.join(app, 'main', 'empty', 'nested'), { recursive: true });
  await put('mine.txt', "the app folder's own\n", 0o640);
  return app;
}

/** History records carry the wall-clock time of the run; everything else must match exactly. */
function timeless(tree: TreeSnapshot): TreeSnapshot {
  const out: TreeSnapshot = {};
  for (const [p, value] of Object.entries(tree))
    out[p] = /^\.svc\/history\/[^/]+\.json$/.test(p) ? 'a history record' : value;
  return out;
}

/** Runs the built CLI as its own process, killed with SIGKILL at `killAt`; its signal or code, and stdout. */
async function killedRun(
  cwd: string,
  argv: string[],
  killAt: string,
): Promise<{ exit: string | number | null; stdout: string; stderr: string }> {
  const cli = path.join(root, 'source-set-steps.mjs');
  if (!existsSync(cli)) await bundleEntry('test/helpers/source-set-steps.ts', cli);
  const child = spawn(process.execPath, [cli, ...argv], {
    cwd,
    // The bundle's own require() calls (the compiled OpenAPI validators) resolve from here.
    env: { PATH: process.env.PATH ?? '', NODE_PATH: path.resolve('node_modules'), KILL_AT_STEP: killAt },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  child.stderr.on('data', (d: Buffer) => {
    stderr += d.toString();
  });
  const exit = await new Promise<string | number | null>((done) =>
    child.once('close', (code, signal) => done(signal ?? code)),
  );
  return { exit, stdout, stderr };
}

beforeAll(async () => {
  platform = await startPlatform();
  root = await mkdtemp(path.join(tmpdir(), 'svc-source-set-'));
  env = { SVC_APP_BUILDER_ORIGIN: platform.origin };
  await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'v1.yaml'));
  await cp(path.join(fixtures, 'petstore-v2.yaml'), path.join(root, 'v2.yaml'));
  platform.apps.set(
    'acme',
    newApp({
      live: bubbleSwagger({
        host: 'acme.bubbleapps.io',
        basePath: '/api/1.1',
        types: ['product'],
        workflows: ['ship'],
      }),
    }),
  );
});

afterAll(async () => {
  await platform.close();
  await rm(root, { recursive: true, force: true });
});

describe('svc source set', () => {
  it('changes nothing when the new source is unreachable, or the server is published', async () => {
    const dir = await petsFolder('fail-closed');
    const before = await readFolder(dir);
    const missing = await svc(['source', 'set', 'fail-closed', '--openapi', 'nope.yaml'], { cwd: root, env });
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('SOURCE_NOT_FOUND');
    const hidden = await svc(['source', 'set', 'fail-closed', '--app-builder', 'ghost', '--yes'], {
      cwd: root,
      env,
    });
    expect(hidden.code).toBe(3);
    expect(hidden.stderr).toContain('SOURCE_UNREACHABLE');
    expect(hidden.stderr).toContain('Expose Swagger file');
    const secret = await svc(
      ['source', 'set', 'fail-closed', '--openapi', `${platform.customOrigin}/openapi.yaml?api_key=k-5521`],
      { cwd: root, env },
    );
    expect(secret.code).toBe(2);
    expect(secret.stderr).toContain('credential');
    expect(secret.stderr).not.toContain('k-5521');
    expect(await readFolder(dir)).toEqual(before);

    await svc(['publish', 'fail-closed'], { cwd: root, env });
    const published = await readFolder(dir);
    const refused = await svc(['source', 'set', 'fail-closed', '--openapi', 'v2.yaml'], { cwd: root, env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('PUBLISHED');
    expect(refused.stderr).toContain('svc unpublish fail-closed');
    expect(await readFolder(dir)).toEqual(published);
  });

  it('same provider, new document: re-imports keeping enabled flags and the OAuth configuration', async () => {
    const dir = await petsFolder('same');
    const run = await svc(['source', 'set', 'same', '--openapi', 'v2.yaml'], { cwd: root, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const config = await configOf(dir);
    expect(config.source).toEqual({ kind: 'openapi', location: '../v2.yaml' });
    expect(config.oauth).toEqual(oauth);
    expect(await readFile(path.join(dir, 'Tools', 'findPetsByStatus.yaml'), 'utf8')).toContain(
      'enabled: true',
    );
    expect(Object.keys(await readFolder(dir))).toContain('Tools/getPetHistory.yaml');
  });

  it('a provider change says what goes and needs --yes, then resets tools, history and OAuth', async () => {
    const dir = await petsFolder('switch');
    const before = await readFolder(dir);
    const asked = await svc(['source', 'set', 'switch', '--app-builder', 'acme'], { cwd: root, env });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('from openapi to app_builder deletes');
    expect(asked.stderr).toMatch(/- 1\d tools \(Tools\/\)/);
    expect(asked.stderr).toContain('the import history (1 import, .svc/)');
    expect(asked.stderr).toContain('the OAuth configuration');
    expect(asked.stderr).toContain('--yes');
    expect(await readFolder(dir)).toEqual(before);

    const run = await svc(['source', 'set', 'switch', '--app-builder', 'acme', '--yes'], { cwd: root, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const config = await configOf(dir);
    expect(config.app.provider).toBe('app_builder');
    expect(config.source).toMatchObject({
      kind: 'app_builder',
      appId: 'acme',
      branch: 'live',
      verified: false,
    });
    expect(config.oauth).toBeUndefined();
    expect(config.auth.mode).toBe('user_oauth');
    expect(config.server.id).toBe('switch');
    expect(config.apiBaseUrl).toBe(`${platform.origin.replace('{app}', 'acme')}/api/1.1`);
    const files = Object.keys(await readFolder(dir));
    expect(files.filter((p) => p.startsWith('Tools/') || p.startsWith('.svc/'))).toEqual([]);
    const token = config.source.kind === 'app_builder' ? (config.source.verificationToken as string) : '';
    expect(run.stdout).toContain(`add a page named exactly ${token}`);

    // Unverified: no import yet; once the page is up, verify and import the new source.
    expect((await svc(['import', 'switch'], { cwd: root, env })).stderr).toContain('NOT_VERIFIED');
    platform.apps.get('acme')?.livePages.add(token);
    expect((await svc(['verify', 'switch'], { cwd: root, env })).code).toBe(0);
    const imported = await svc(['import', 'switch', '--json'], { cwd: root, env });
    expect(imported.code).toBe(0);
    expect((JSON.parse(imported.stdout) as { checklist: { count: number }[] }).checklist[0]?.count).toBe(6);

    // Another app of the same provider: the tools stay, but it must be verified again.
    platform.apps.set(
      'acme2',
      newApp({
        live: bubbleSwagger({
          host: 'acme2.bubbleapps.io',
          basePath: '/api/1.1',
          types: ['product'],
          workflows: ['ship'],
        }),
      }),
    );
    const moved = await svc(['source', 'set', 'switch', '--app-builder', 'acme2'], { cwd: root, env });
    expect(moved.code).toBe(0);
    const movedConfig = await configOf(dir);
    expect(movedConfig.source).toMatchObject({ appId: 'acme2', verified: false });
    expect(movedConfig.apiBaseUrl).toBe(`${platform.origin.replace('{app}', 'acme2')}/api/1.1`);
    expect(Object.keys(await readFolder(dir)).filter((p) => /^Tools\/.*\.yaml$/.test(p))).toHaveLength(6);
    expect((await svc(['import', 'switch'], { cwd: root, env })).stderr).toContain('NOT_VERIFIED');

    // And back to OpenAPI: the app-builder tools go, the document is imported at once.
    await setConfig(dir, (c) => ({ ...c, oauth }));
    const back = await svc(['source', 'set', 'switch', '--openapi', 'v1.yaml', '--yes'], { cwd: root, env });
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect(back.stdout).toContain('6 tools (Tools/)');
    const after = await configOf(dir);
    expect(after.app.provider).toBe('openapi');
    expect(after.server.name).toBe('Default');
    expect(after.oauth).toBeUndefined();
    expect(after.apiBaseUrl).toBe('https://petstore3.swagger.io/api/v3');
    const tools = Object.keys(await readFolder(dir)).filter((p) => /^Tools\/.*\.yaml$/.test(p));
    expect(tools).toContain('Tools/findPetsByStatus.yaml');
    expect(tools.some((p) => p.includes('product'))).toBe(false);
    // The new history starts over.
    expect(Object.keys(await readFolder(dir)).filter((p) => p.startsWith('.svc/history/'))).toHaveLength(1);
  });

  it('a provider change of an app in branch folders replaces the whole app with one server in the app folder', async () => {
    const doc = (host: string) =>
      bubbleSwagger({ host, basePath: '/api/1.1', types: ['product'], workflows: ['ship'] });
    platform.apps.set(
      'shopx',
      newApp({ live: doc('shopx.bubbleapps.io'), main: doc('shopx.bubbleapps.io') }),
    );
    expect(
      (await svc(['init', 'shopx', '--name', 'Shop', '--app-builder', 'shopx'], { cwd: root, env })).code,
    ).toBe(0);
    const app = path.join(root, 'shopx');
    await writeFile(path.join(app, 'notes.txt'), 'mine\n');
    await writeFile(path.join(app, 'live', 'NOTES.md'), 'live notes\n');
    await writeFile(path.join(app, 'main', 'TODO.md'), 'main todo\n');
    const before = await readFolder(app);
    const mainBefore = await treeSnapshot(path.join(app, 'main'));

    // Fail closed, published refused, --yes needed: nothing changes.
    const missing = await svc(['source', 'set', 'shopx', '--openapi', 'nope.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(missing.code).toBe(3);
    await setConfig(path.join(app, 'main'), (c) => ({ ...c, server: { ...c.server, published: true } }));
    const published = await svc(['source', 'set', 'shopx/live', '--openapi', 'v1.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(published.code).toBe(3);
    expect(published.stderr).toContain('shopx/main is published');
    await setConfig(path.join(app, 'main'), (c) => ({ ...c, server: { ...c.server, published: false } }));
    const asked = await svc(['source', 'set', 'shopx/live', '--openapi', 'v1.yaml'], { cwd: root, env });
    expect(asked.code).toBe(2);
    expect(asked.stderr).toContain('replaces the whole app in shopx');
    expect(asked.stderr).toContain('the branch folder live/');
    expect(asked.stderr).toContain('the branch folder main/');
    expect(asked.stderr).toContain('Your files in main/ stay there: TODO.md');
    expect(asked.stderr).toContain('The new server is shopx itself');
    expect(await readFolder(app)).toEqual(before);

    const run = await svc(['source', 'set', 'shopx/live', '--openapi', 'v1.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      "The app's server is now shopx itself.\nIts branch folders live/ were deleted.",
    );
    expect(run.stdout).toContain('main/ keeps files of yours svc did not write');
    expect(existsSync(path.join(app, 'live'))).toBe(false);
    // svc deletes only what it wrote: the user's TODO.md stays in main/, alone.
    expect(await treeSnapshot(path.join(app, 'main'))).toEqual({ 'TODO.md': mainBefore['TODO.md'] });
    const config = await configOf(app);
    expect(config.app.provider).toBe('openapi');
    expect(config.source).toEqual({ kind: 'openapi', location: '../v1.yaml' });
    expect(config.server).toEqual({ id: 'shopx', name: 'Default', published: false });
    expect(config.apiBaseUrl).toBe('https://petstore3.swagger.io/api/v3');
    const files = await readFolder(app);
    expect(files['notes.txt']).toBe('mine\n');
    expect(files['NOTES.md']).toBe('live notes\n');
    expect(Object.keys(files)).toContain('Tools/findPetsByStatus.yaml');
    expect(Object.keys(files).filter((p) => p.startsWith('.svc/history/'))).toHaveLength(1);
  });

  it('an app change whose import fails leaves the whole tree as it was, bytes and modes', async () => {
    const app = await appWithUserFiles('rollback');
    const before = await treeSnapshot(app);
    const flaky = await flakyDocument(await readFile(path.join(root, 'v1.yaml'), 'utf8'));
    try {
      const run = await svc(['source', 'set', 'rollback', '--openapi', flaky.url, '--yes'], {
        cwd: root,
        env,
      });
      expect(run.code).toBe(3);
      expect(run.stdout).toContain('Importing into rollback');
      expect(run.stderr).toContain('failed with HTTP 500');
    } finally {
      await flaky.close();
    }
    expect(await treeSnapshot(app)).toEqual(before);
  });

  it("an app change deletes only the files svc wrote: the user's move (bytes and modes kept) or stay", async () => {
    const app = await appWithUserFiles('keeper');
    // A file of the primary branch whose name is taken in the app folder stays in the branch folder.
    await writeFile(path.join(app, 'live', 'mine.txt'), 'live has one too\n');
    const before = await treeSnapshot(app);
    const run = await svc(['source', 'set', 'keeper', '--openapi', 'v1.yaml', '--yes'], { cwd: root, env });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const after = await treeSnapshot(app);
    // live/'s files moved up, as they were (an executable stays one, a binary file keeps its bytes).
    for (const p of ['scripts/deploy.sh', 'assets/logo.bin', 'private.key', 'Prompts/greet.md'])
      expect(after[p], p).toBe(before[`live/${p}`]);
    expect(after['mine.txt']).toBe(before['mine.txt']);
    expect(after['live/mine.txt']).toBe(before['live/mine.txt']);
    expect(Object.keys(after).filter((p) => p.startsWith('live/'))).toEqual(['live/', 'live/mine.txt']);
    // main/ keeps every file of the user's, and loses only svc's.
    const mainAfter = Object.fromEntries(Object.entries(after).filter(([p]) => p.startsWith('main/')));
    expect(mainAfter).toEqual({
      'main/': 'dir',
      'main/empty/': 'dir',
      'main/empty/nested/': 'dir',
      'main/notes/': 'dir',
      'main/notes/deep/': 'dir',
      'main/notes/deep/er/': 'dir',
      'main/notes/deep/er/plan.txt': before['main/notes/deep/er/plan.txt'],
      'main/run.sh': before['main/run.sh'],
    });
    expect(run.stdout).toContain('main/ keeps files of yours svc did not write');
    expect(run.stdout).toContain('notes/deep/er/plan.txt, run.sh');
    expect((await configOf(app)).source).toEqual({ kind: 'openapi', location: '../v1.yaml' });
  });

  it('an app change killed between its import and its retiring is finished by the next run', async () => {
    const app = await appWithUserFiles('resumed');
    // The same app, changed without interruption, is what the finished change must look like.
    const reference = path.join(root, 'reference', 'resumed');
    await cp(app, reference, { recursive: true });
    await cp(path.join(root, 'v1.yaml'), path.join(root, 'reference', 'v1.yaml'));
    const v1 = 'v1.yaml';
    const whole = await svc(['source', 'set', 'resumed', '--openapi', v1, '--yes'], {
      cwd: path.dirname(reference),
      env,
    });
    expect(whole.code).toBe(0);

    const killed = await killedRun(root, ['source', 'set', 'resumed', '--openapi', v1, '--yes'], 'retire');
    expect(killed.stderr).toBe('');
    expect(killed.exit).toBe('SIGKILL');
    expect(killed.stdout).toContain('step retire');
    // The new server is there, the branch folders are still whole, and the change says so. (Read
    // without settling: any command that opens the app folder would finish the change.)
    expect(await readFile(path.join(app, 'config.yaml'), 'utf8')).toContain('location: ../v1.yaml');
    expect(existsSync(path.join(app, 'live', 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(app, 'main', 'config.yaml'))).toBe(true);
    // The retiring is journaled beside the app folder, with its swap (folder/crash-journal.ts).
    expect(existsSync(path.join(root, '.resumed.svc-swap'))).toBe(true);

    // Named by one of its branch folders, as the first run may have been.
    const again = await svc(['source', 'set', 'resumed/live', '--openapi', v1, '--yes'], { cwd: root, env });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('resumed: finished an interrupted provider change: the branch folders');
    expect(again.stdout).toContain("The app's server is now resumed itself.");
    expect(again.stdout).toContain('main/ keeps files of yours svc did not write');
    expect(timeless(await treeSnapshot(app))).toEqual(timeless(await treeSnapshot(reference)));
    // Finished: a further run is an ordinary one.
    const later = await svc(['source', 'set', 'resumed', '--openapi', v1, '--yes'], { cwd: root, env });
    expect(later.stdout).not.toContain('interrupted');
  });

  it('an app change killed between retiring its first and its second branch folder is finished by any next command', async () => {
    const app = await appWithUserFiles('halfway');
    const reference = path.join(root, 'reference', 'halfway');
    await cp(app, reference, { recursive: true });
    const whole = await svc(['source', 'set', 'halfway', '--openapi', 'v1.yaml', '--yes'], {
      cwd: path.dirname(reference),
      env,
    });
    expect(whole.code).toBe(0);

    const killed = await killedRun(
      root,
      ['source', 'set', 'halfway', '--openapi', 'v1.yaml', '--yes'],
      'retire main',
    );
    expect(killed.exit).toBe('SIGKILL');
    expect(killed.stdout).toContain('step retire live\nstep retire main');
    // Folder 1 (the app folder) and branch folder live are done, branch folder main is whole.
    expect(existsSync(path.join(app, 'live'))).toBe(false);
    expect(existsSync(path.join(app, 'main', 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(root, '.halfway.svc-swap'))).toBe(true);

    // Not only svc source set: any command that opens the app folder finishes the change (its
    // notice goes to the process's stderr, as every repair's: folder/crash-journal.test.ts).
    const check = await svc(['validate', 'halfway'], { cwd: root, env });
    expect(check.code).toBe(0);
    expect(timeless(await treeSnapshot(app))).toEqual(timeless(await treeSnapshot(reference)));
    expect(existsSync(path.join(root, '.halfway.svc-swap'))).toBe(false);
  });

  it("a provider change refuses to rewrite a file of the user's under a managed path that is not text", async () => {
    const dir = await petsFolder('binary-kept');
    await mkdir(path.join(dir, 'Resources'), { recursive: true });
    await writeFile(
      path.join(dir, 'Resources', 'diagram.bin'),
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0xff, 0x00, 0xfe]),
    );
    const before = await treeSnapshot(dir);
    const run = await svc(['source', 'set', 'binary-kept', '--app-builder', 'acme', '--yes'], {
      cwd: root,
      env,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('not UTF-8 text: move Resources/diagram.bin out of there first');
    expect(await treeSnapshot(dir)).toEqual(before);

    const app = await appWithUserFiles('binary-app');
    await writeFile(path.join(app, 'live', 'Prompts', 'raw.bin'), Buffer.from([0xff, 0xfe, 0x00]));
    const appBefore = await treeSnapshot(app);
    const changed = await svc(['source', 'set', 'binary-app', '--openapi', 'v1.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(changed.code).toBe(3);
    expect(changed.stderr).toContain('move Prompts/raw.bin out of there first');
    expect(await treeSnapshot(app)).toEqual(appBefore);
  });

  it("a provider change of a single folder keeps the user's files under content directories, bytes and modes", async () => {
    const dir = await petsFolder('modes-kept');
    const put = async (rel: string, text: string, mode: number) => {
      const file = path.join(dir, ...rel.split('/'));
      await mkdir(path.dirname(file), { recursive: true });
      await writeFile(file, text);
      await chmod(file, mode);
    };
    await put('Resources/build.sh', '#!/bin/sh\necho build\n', 0o755);
    await put('Docs/private.txt', 'for my eyes\n', 0o600);
    await put('Skills/ship/run.sh', '#!/bin/sh\nexit 0\n', 0o750);
    await mkdir(path.join(dir, 'assets'));
    await writeFile(path.join(dir, 'assets', 'logo.bin'), Buffer.from([0x89, 0x50, 0xff, 0x00, 0xfe]));
    await put('scripts/deploy.sh', '#!/bin/sh\necho deploy\n', 0o700);
    const before = await treeSnapshot(dir);
    const mine = [
      'Resources/build.sh',
      'Docs/private.txt',
      'Skills/ship/run.sh',
      'assets/logo.bin',
      'scripts/deploy.sh',
    ];
    const kept = (tree: Record<string, string>) => mine.map((p) => tree[p]);
    expect(kept(before).map((v) => v?.split(' ')[0])).toEqual(['755', '600', '750', '644', '700']);

    // To app-builder (the folder is rewritten with an empty server), then back to OpenAPI (imported).
    const away = await svc(['source', 'set', 'modes-kept', '--app-builder', 'acme', '--yes'], {
      cwd: root,
      env,
    });
    expect(away.code).toBe(0);
    expect(kept(await treeSnapshot(dir))).toEqual(kept(before));
    const back = await svc(['source', 'set', 'modes-kept', '--openapi', 'v1.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect(kept(await treeSnapshot(dir))).toEqual(kept(before));
  });

  it('a single app-builder server in a folder named live stays a single server', async () => {
    const init = await svc(['init', 'solo/live', '--name', 'Solo', '--openapi', 'v1.yaml'], {
      cwd: root,
      env,
    });
    expect(init.code).toBe(0);
    const dir = path.join(root, 'solo', 'live');
    expect(
      (await svc(['source', 'set', 'solo/live', '--app-builder', 'acme', '--yes'], { cwd: root, env })).code,
    ).toBe(0);
    expect((await configOf(dir)).server.name).toBe('live');
    const back = await svc(['source', 'set', 'solo/live', '--openapi', 'v1.yaml', '--yes'], {
      cwd: root,
      env,
    });
    expect(back.stderr).toBe('');
    expect(back.code).toBe(0);
    expect((await configOf(dir)).source).toEqual({ kind: 'openapi', location: '../../v1.yaml' });
    expect(existsSync(path.join(root, 'solo', 'config.yaml'))).toBe(false);
  });
});
