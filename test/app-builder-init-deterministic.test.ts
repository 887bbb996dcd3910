/**
 * `svc init --app-builder` is a pure function of its inputs once the verification token is one of
 * them: given with --verification-token or SVC_VERIFICATION_TOKEN, two runs write byte-identical
 * folders (bytes and modes) and print the same thing. Without it a random token is issued, and
 * that token is the only difference between two runs.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { treeSnapshot } from '../folder/testing/tree-snapshot.js';
import { bubbleSwagger, newApp, type Platform, startPlatform } from './helpers/app-builder-platform.js';
import { svc } from './helpers/run-cli.js';

let platform: Platform;
let env: Record<string, string>;
const roots: string[] = [];
const TOKEN = '5f0c1e9a7b3d42e68a1c0f9e7d2b4a61';

beforeAll(async () => {
  platform = await startPlatform();
  env = { SVC_APP_BUILDER_ORIGIN: platform.origin };
  const doc = bubbleSwagger({
    host: 'acme.bubbleapps.io',
    basePath: '/api/1.1',
    types: ['order'],
    workflows: ['ship'],
  });
  platform.apps.set('acme', newApp({ live: doc, main: doc }));
});

afterAll(async () => {
  await platform.close();
  for (const r of roots) await rm(r, { recursive: true, force: true });
});

/** `svc init shop … --app-builder acme` in a fresh directory: its output and the folder it wrote. */
async function initIn(extra: string[], extraEnv: Record<string, string> = {}) {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-ab-det-'));
  roots.push(root);
  const run = await svc(['init', 'shop', '--name', 'Shop', '--app-builder', 'acme', ...extra], {
    cwd: root,
    env: { ...env, ...extraEnv },
  });
  return {
    root,
    run,
    tree: existsSync(path.join(root, 'shop')) ? await treeSnapshot(path.join(root, 'shop')) : {},
  };
}

describe('svc init --app-builder with a given verification token', () => {
  it('writes byte-identical folders and output at every run, from the flag or the environment', async () => {
    const a = await initIn(['--verification-token', TOKEN]);
    const b = await initIn(['--verification-token', TOKEN]);
    const c = await initIn([], { SVC_VERIFICATION_TOKEN: TOKEN });
    expect(a.run.code).toBe(0);
    expect(Object.keys(a.tree)).toContain('live/config.yaml');
    expect(Object.keys(a.tree)).toContain('main/config.yaml');
    expect(b.tree).toEqual(a.tree);
    expect(c.tree).toEqual(a.tree);
    expect(b.run).toEqual(a.run);
    expect(c.run).toEqual(a.run);
    expect(a.run.stdout).toContain(`add a page named exactly ${TOKEN}`);
    const json = await initIn(['--verification-token', TOKEN, '--json']);
    expect(JSON.parse(json.run.stdout).verificationToken).toBe(TOKEN);
    expect(json.tree).toEqual(a.tree);
  });

  it('the given token is the one svc verify looks for', async () => {
    const a = await initIn(['--verification-token', TOKEN]);
    (platform.apps.get('acme') as ReturnType<typeof newApp>).livePages.add(TOKEN);
    try {
      const verified = await svc(['verify', 'shop'], { cwd: a.root, env });
      expect(verified.stdout).toContain('App verified.');
      expect(verified.code).toBe(0);
    } finally {
      (platform.apps.get('acme') as ReturnType<typeof newApp>).livePages.delete(TOKEN);
    }
  });

  it('without one, a random token is the only difference between two runs', async () => {
    const a = await initIn([]);
    const b = await initIn([]);
    const tokenOf = (stdout: string) => /add a page named exactly ([a-z0-9]+) /.exec(stdout)?.[1] as string;
    const [ta, tb] = [tokenOf(a.run.stdout), tokenOf(b.run.stdout)];
    expect(ta).toMatch(/^svcverify[0-9a-f]{16}$/);
    expect(tb).not.toBe(ta);
    const decoded = (tree: Record<string, string>, token: string) =>
      JSON.parse(
        JSON.stringify(tree, (_k, v) =>
          typeof v === 'string' && / /.test(v)
            ? (() => {
                const [mode, b64] = v.split(' ') as [string, string];
                return `${mode} ${Buffer.from(b64, 'base64').toString('utf8').replaceAll(token, '<token>')}`;
              })()
            : v,
        ),
      );
    expect(decoded(a.tree, ta)).toEqual(decoded(b.tree, tb));
    expect(a.run.stdout.replaceAll(ta, '<token>')).toBe(b.run.stdout.replaceAll(tb, '<token>'));
  });

  it('refuses a token that is short or not a page name, and writes nothing', async () => {
    for (const bad of ['abc123', 'Has-Upper-And-Dash-0123456789', 'a'.repeat(65)]) {
      const run = await initIn(['--verification-token', bad]);
      expect(run.run.code, bad).toBe(2);
      expect(run.run.stderr).toContain('16 to 64 lower-case letters and digits');
      expect(run.tree).toEqual({});
    }
    const fromEnv = await initIn([], { SVC_VERIFICATION_TOKEN: 'short' });
    expect(fromEnv.run.code).toBe(2);
    expect(fromEnv.run.stderr).toContain('SVC_VERIFICATION_TOKEN');
  });
});
