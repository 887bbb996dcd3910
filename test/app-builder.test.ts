/**
 * App-builder apps end to end through the CLI, against a loopback stand-in of the platform:
 * `svc init --app-builder` (custom domain, one folder per reachable branch, setup instructions when
 * none is), `svc verify` (token page on either version, run-mode basic auth, --reset) and
 * `svc import` refusing until verified, then importing each branch on its own.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadFolder, readFolder } from '../folder/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { bubbleSwagger, newApp, type Platform, startPlatform } from './helpers/app-builder-platform.js';
import { svc } from './helpers/run-cli.js';

let platform: Platform;
let root: string;
let env: Record<string, string>;

const liveDoc = () =>
  bubbleSwagger({
    host: 'acme.bubbleapps.io',
    basePath: '/api/1.1',
    types: ['product'],
    workflows: ['place_order'],
  });
const mainDoc = () =>
  bubbleSwagger({
    host: 'acme.bubbleapps.io',
    basePath: '/version-test/api/1.1',
    types: ['product'],
    workflows: ['place_order', 'refund'],
  });

async function configOf(dir: string): Promise<SvcConfig> {
  const loaded = loadFolder(await readFolder(dir));
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  return loaded.folder.config;
}

async function snapshot(dir: string): Promise<Record<string, string>> {
  return readFolder(dir);
}

beforeAll(async () => {
  platform = await startPlatform();
  root = await mkdtemp(path.join(tmpdir(), 'svc-app-builder-'));
  env = { SVC_APP_BUILDER_ORIGIN: platform.origin };
});

afterAll(async () => {
  await platform.close();
  await rm(root, { recursive: true, force: true });
});

beforeEach(() => {
  platform.apps.clear();
  platform.customApp = undefined;
});

describe('svc init --app-builder', () => {
  it('detects the custom Live domain and makes one unverified folder per branch, without tools', async () => {
    platform.apps.set(
      'acme',
      newApp({
        meta: {
          get: ['product'],
          post: [{ endpoint: 'place_order' }],
          app_data: { appname: 'acme', domain: platform.customOrigin },
        },
        live: liveDoc(),
        main: mainDoc(),
      }),
    );
    platform.customApp = 'acme';
    const run = await svc(['init', 'shop', '--name', 'Acme Shop', '--app-builder', 'acme'], {
      cwd: root,
      env,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const live = await configOf(path.join(root, 'shop', 'live'));
    const main = await configOf(path.join(root, 'shop', 'main'));
    expect(live.server).toEqual({ id: 'shop-live', name: 'live', published: false });
    expect(main.server).toEqual({ id: 'shop-main', name: 'main', published: false });
    expect(live.app.provider).toBe('app_builder');
    expect(live.source).toMatchObject({
      kind: 'app_builder',
      appId: 'acme',
      branch: 'live',
      customDomain: platform.customOrigin,
      platformOrigin: platform.origin,
      verified: false,
    });
    // Live is served from the custom domain, Main from the platform's version-test.
    expect(live.apiBaseUrl).toBe(`${platform.customOrigin}/api/1.1`);
    expect(main.apiBaseUrl).toBe(`${platform.origin.replace('{app}', 'acme')}/version-test/api/1.1`);
    const token = live.source.kind === 'app_builder' ? live.source.verificationToken : undefined;
    expect(token).toMatch(/^svcverify[0-9a-f]{16}$/);
    expect(main.source).toMatchObject({ verificationToken: token, branch: 'main' });
    expect(run.stdout).toContain(`add a page named exactly ${token}`);
    expect(run.stdout).toContain('svc verify shop');
    expect(
      Object.keys(await readFolder(path.join(root, 'shop', 'live'))).filter((p) => p.startsWith('Tools/')),
    ).toEqual([]);
    // The live document was read from the custom domain, not the platform.
    expect(platform.requests).toContain('custom /api/1.1/meta/swagger.json -');
  });

  it('creates only the branches whose document is reachable, and an extra branch with --branch', async () => {
    platform.apps.set('solo', newApp({ main: mainDoc() }));
    const run = await svc(
      ['init', 'solo', '--name', 'Solo', '--app-builder', 'solo', '--branch', 'feature1', '--json'],
      { cwd: root, env },
    );
    expect(run.code).toBe(0);
    const out = JSON.parse(run.stdout) as { branches: { folder: string; reachable: boolean }[] };
    expect(out.branches.map((b) => [b.folder, b.reachable])).toEqual([
      ['live', false],
      ['main', true],
      ['version-feature1', false],
    ]);
    expect(existsSync(path.join(root, 'solo', 'main', 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(root, 'solo', 'live'))).toBe(false);
    // Again into the same folder: a branch folder that exists is never overwritten.
    const again = await svc(['init', 'solo', '--name', 'Solo', '--app-builder', 'solo', '--force'], {
      cwd: root,
      env,
    });
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('FOLDER_EXISTS');
  });

  it('prints the setup instructions and writes nothing when no branch is reachable', async () => {
    platform.apps.set('hidden', newApp({ meta: { get: [] } }));
    const run = await svc(['init', 'hidden', '--name', 'Hidden', '--app-builder', 'hidden'], {
      cwd: root,
      env,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('SOURCE_UNREACHABLE');
    expect(run.stderr).toContain('Expose Swagger file');
    expect(run.stderr).toContain('Enable Data API');
    expect(run.stderr).toContain('public, or accessible to authenticated users');
    expect(existsSync(path.join(root, 'hidden'))).toBe(false);
  });
});

describe('svc verify and svc import', () => {
  it('refuses to import until verified, verifies through run-mode basic auth, imports each branch', async () => {
    const app = newApp({ meta: { app_data: { appname: 'shop2' } }, live: liveDoc(), main: mainDoc() });
    platform.apps.set('shop2', app);
    expect(
      (await svc(['init', 'shop2', '--name', 'Shop', '--app-builder', 'shop2'], { cwd: root, env })).code,
    ).toBe(0);
    const liveDir = path.join(root, 'shop2', 'live');
    const before = await snapshot(liveDir);

    // Not verified: import refuses, names svc verify, and writes nothing (no history record either).
    const refused = await svc(['import', 'shop2/live'], { cwd: root, env });
    expect(refused.code).toBe(3);
    expect(refused.stderr).toContain('NOT_VERIFIED');
    expect(refused.stderr).toContain('svc verify');
    expect(await snapshot(liveDir)).toEqual(before);

    const config = await configOf(liveDir);
    const token = config.source.kind === 'app_builder' ? (config.source.verificationToken as string) : '';

    // No page yet: an unknown page redirects to the index page, which does not count.
    const missing = await svc(['verify', 'shop2'], { cwd: root, env });
    expect(missing.code).toBe(1);
    expect(missing.stdout).toContain(`Verification token: ${token}`);
    expect(missing.stdout).toContain('redirected to');
    expect((await configOf(liveDir)).source).toMatchObject({ verified: false });

    // The page is on version-test only, behind run-mode protection.
    app.mainPages.add(token);
    app.runMode = { user: 'owner', password: 'run-mode-pw-7731' };
    const noCredentials = await svc(['verify', 'shop2'], { cwd: root, env });
    expect(noCredentials.code).toBe(1);
    expect(noCredentials.stdout).toContain('SVC_RUN_MODE_USER');
    const verified = await svc(['verify', 'shop2'], {
      cwd: root,
      env: { ...env, SVC_RUN_MODE_USER: 'owner', SVC_RUN_MODE_PASSWORD: 'run-mode-pw-7731' },
    });
    expect(verified.stderr).toBe('');
    expect(verified.code).toBe(0);
    expect(verified.stdout).toContain('App verified');
    for (const branch of ['live', 'main']) {
      expect((await configOf(path.join(root, 'shop2', branch))).source).toMatchObject({ verified: true });
    }
    // Basic credentials went to the verification pages only, never to the API.
    const withAuth = platform.requests.filter((r) => !r.endsWith(' -'));
    expect(withAuth.length).toBeGreaterThan(0);
    expect(withAuth.some((r) => r.startsWith(`platform /shop2/version-test/${token} Basic `))).toBe(true);
    expect(withAuth.filter((r) => r.includes('/api/'))).toEqual([]);

    // Each branch imports on its own, with its own checklist (Tools and Resources rows only).
    const live = await svc(['import', 'shop2/live', '--json'], { cwd: root, env });
    expect(live.code).toBe(0);
    const liveOut = JSON.parse(live.stdout) as { checklist: { label: string; count: number }[] };
    expect(liveOut.checklist.map((r) => [r.label, r.count])).toEqual([
      ['Tools', 6],
      ['Resources', 0],
    ]);
    const main = await svc(['import', 'shop2/main', '--json'], { cwd: root, env });
    expect(main.code).toBe(0);
    const mainOut = JSON.parse(main.stdout) as {
      checklist: { label: string; count: number }[];
      report: { source: { location: string } };
    };
    expect(mainOut.checklist[0]).toMatchObject({ label: 'Tools', count: 7 });
    expect(mainOut.report.source.location).toBe(
      `${platform.origin.replace('{app}', 'shop2')}/version-test/api/1.1/meta/swagger.json`,
    );
    const mainFiles = await readFolder(path.join(root, 'shop2', 'main'));
    expect(Object.keys(mainFiles).some((p) => /^Tools\/.*refund.*\.yaml$/.test(p))).toBe(true);
    // The API base URL is the branch's, whatever host the document names.
    expect((await configOf(path.join(root, 'shop2', 'main'))).apiBaseUrl).toBe(
      `${platform.origin.replace('{app}', 'shop2')}/version-test/api/1.1`,
    );
    // The run-mode password is written nowhere.
    for (const branch of ['live', 'main']) {
      for (const [file, text] of Object.entries(await readFolder(path.join(root, 'shop2', branch)))) {
        expect(text.includes('run-mode-pw-7731'), file).toBe(false);
      }
    }
    expect(verified.stdout + live.stdout + main.stdout).not.toContain('run-mode-pw-7731');

    // The app's folder imports every branch, each with its own checklist.
    const both = await svc(['import', 'shop2'], { cwd: root, env });
    expect(both.code).toBe(0);
    expect(both.stdout).toContain(`Importing into ${path.join('shop2', 'live')}`);
    expect(both.stdout).toContain(`Importing into ${path.join('shop2', 'main')}`);
    expect(both.stdout.match(/Tools/g)?.length).toBeGreaterThanOrEqual(2);

    // The custom domain set by hand (spec 2.2): the next import reads Live there and calls it there.
    const liveConfig = path.join(liveDir, 'config.yaml');
    await writeFile(
      liveConfig,
      (await readFile(liveConfig, 'utf8')).replace(
        '  verified: true',
        `  verified: true\n  customDomain: ${platform.customOrigin}`,
      ),
    );
    platform.customApp = 'shop2';
    const seen = platform.requests.length;
    expect((await svc(['import', 'shop2/live'], { cwd: root, env })).code).toBe(0);
    expect((await configOf(liveDir)).apiBaseUrl).toBe(`${platform.customOrigin}/api/1.1`);
    expect(platform.requests.slice(seen)).toContain('custom /api/1.1/meta/swagger.json -');

    // --reset: a new token, unverified again, and import refuses again.
    const reset = await svc(['verify', 'shop2', '--reset'], { cwd: root, env });
    expect(reset.code).toBe(0);
    const after = await configOf(liveDir);
    expect(after.source).toMatchObject({ verified: false });
    const newToken = after.source.kind === 'app_builder' ? after.source.verificationToken : '';
    expect(newToken).not.toBe(token);
    expect(reset.stdout).toContain(newToken);
    expect((await configOf(path.join(root, 'shop2', 'main'))).source).toMatchObject({
      verificationToken: newToken,
    });
    expect((await svc(['import', 'shop2/main'], { cwd: root, env })).stderr).toContain('NOT_VERIFIED');
  });

  it('finds the page on the live version, at the custom domain', async () => {
    const app = newApp({ meta: { app_data: { domain: platform.customOrigin } }, live: liveDoc() });
    platform.apps.set('custom', app);
    platform.customApp = 'custom';
    expect(
      (await svc(['init', 'custom', '--name', 'C', '--app-builder', 'custom'], { cwd: root, env })).code,
    ).toBe(0);
    const config = await configOf(path.join(root, 'custom', 'live'));
    const token = config.source.kind === 'app_builder' ? (config.source.verificationToken as string) : '';
    app.livePages.add(token);
    // A branch folder can be given too.
    const run = await svc(['verify', 'custom/live'], { cwd: root, env });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`${platform.customOrigin}/${token}: found`);
  });

  it('does not count a page that answers 200 without showing the token', async () => {
    platform.apps.set('soft', newApp({ live: liveDoc(), soft404: true }));
    expect(
      (await svc(['init', 'soft', '--name', 'S', '--app-builder', 'soft'], { cwd: root, env })).code,
    ).toBe(0);
    const config = await configOf(path.join(root, 'soft', 'live'));
    const token = config.source.kind === 'app_builder' ? (config.source.verificationToken as string) : '';
    expect(token).not.toBe('');
    const run = await svc(['verify', 'soft', '--json'], { cwd: root, env });
    expect(run.code).toBe(1);
    const out = JSON.parse(run.stdout) as { probes: { found: boolean; reason: string }[] };
    expect(out.probes.map((p) => [p.found, p.reason])).toEqual([
      [false, 'the page does not show the token'],
      [false, 'the page does not show the token'],
    ]);
    expect(await readFile(path.join(root, 'soft', 'live', 'config.yaml'), 'utf8')).toContain(
      'verified: false',
    );
  });
});
