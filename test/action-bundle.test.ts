/**
 * The bundled action: action/dist/index.js must be what `npm run build:action` makes from today's sources
 * (a stale bundle fails CI), and it must run from a checkout without node_modules — here a temporary copy of
 * action.yml, package.json and the bundle, run as a child process against a real git repository and a fake
 * GitHub API on loopback.
 */
import { execFile, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { COMMENT_MARKER } from '../action/src/comment.js';
import { parseOutputFile } from '../action/src/outputs.js';
import { type FakeGitHub, startFakeGitHub } from '../action/testing/fake-github.js';
import { createTestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { importFolder } from '../generator/import/index.js';
import type { SvcConfig } from '../schemas/types.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const bundlePath = join(root, 'action', 'dist', 'index.js');
const cleanups: (() => void | Promise<void>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
});

describe('action/dist/index.js', () => {
  it('is fresh: equal to a rebuild from the current sources (run `npm run build:action`)', async () => {
    const { bundleAction } = (await import(join(root, 'action', 'build.mjs'))) as {
      bundleAction: () => Promise<string>;
    };
    const fresh = await bundleAction();
    const committed = readFileSync(bundlePath, 'utf8');
    const stale = 'action/dist/index.js is stale: run `npm run build:action` and commit it';
    expect(committed === fresh, stale).toBe(true);
  });

  it('names its own code: the SHA-256 of its text as built with the marker zeroed', () => {
    const committed = readFileSync(bundlePath, 'utf8');
    const id = /svc-bundle-id:([0-9a-f]{64})/.exec(committed)?.[1];
    expect(id).toBeDefined();
    const zeroed = committed.replace(`svc-bundle-id:${id}`, `svc-bundle-id:${'0'.repeat(64)}`);
    expect(createHash('sha256').update(zeroed).digest('hex')).toBe(id);
  });

  it('runs with no node_modules: comments on a pull request and sets outputs', async () => {
    // A clean checkout of the action: only what action.yml needs.
    const actionDir = mkdtempSync(join(tmpdir(), 'svc-action-clean-'));
    cleanups.push(() => rmSync(actionDir, { recursive: true, force: true }));
    mkdirSync(join(actionDir, 'action', 'dist'), { recursive: true });
    copyFileSync(bundlePath, join(actionDir, 'action', 'dist', 'index.js'));
    copyFileSync(join(root, 'action.yml'), join(actionDir, 'action.yml'));
    copyFileSync(join(root, 'package.json'), join(actionDir, 'package.json'));

    // A folder imported by svc from a document in the repository; the pull request edits only the document,
    // so the bundle must run the whole import pipeline (parse, validate, endpoints, tools, merge, diff).
    const repo = createTestRepo();
    cleanups.push(() => repo.cleanup());
    const fixture = (name: string) => readFileSync(join(root, 'fixtures', 'action', name), 'utf8');
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml') });
    const config = parseYaml(
      configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' }),
    ) as SvcConfig;
    const dir = join(repo.dir, 'mcp', 'pets');
    const first = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
    expect(first.status).toBe('complete');
    for (const [path, text] of Object.entries(first.files)) {
      if (path.startsWith('Tools/') && text.includes('path: /pets/{petId}') && text.includes('method: GET')) {
        writeFileSync(join(dir, path), text.replace('enabled: false', 'enabled: true'));
      }
    }
    const base = repo.commit('base');
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    const head = repo.commit('petstore v2');

    const gh: FakeGitHub = await startFakeGitHub({ owner: 'acme', repo: 'apis', token: 'ghs_bundle' });
    cleanups.push(() => gh.close());
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-env-'));
    cleanups.push(() => rmSync(tmp, { recursive: true, force: true }));
    const eventPath = join(tmp, 'event.json');
    writeFileSync(
      eventPath,
      JSON.stringify({ pull_request: { number: 3, base: { sha: base }, head: { sha: head } } }),
    );
    writeFileSync(join(tmp, 'output'), '');
    const env = {
      PATH: process.env['PATH'] ?? '',
      HOME: tmp,
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: eventPath,
      GITHUB_REPOSITORY: 'acme/apis',
      GITHUB_API_URL: gh.url,
      GITHUB_WORKSPACE: repo.dir,
      GITHUB_OUTPUT: join(tmp, 'output'),
      GITHUB_STEP_SUMMARY: join(tmp, 'summary'),
      RUNNER_TEMP: tmp,
      'INPUT_GITHUB-TOKEN': 'ghs_bundle',
      INPUT_FOLDERS: 'mcp/*',
      INPUT_MODE: 'auto',
      'INPUT_FAIL-ON': 'breaking',
    };
    const run = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        [join(actionDir, 'action', 'dist', 'index.js')],
        { cwd: actionDir, env },
        (_e, stdout) => resolve({ code: child.exitCode, stdout }),
      );
    });
    expect(run.stdout).toContain('::error::');
    expect(run.code).toBe(1);
    const comments = gh.comments.filter((c) => c.body.startsWith(COMMENT_MARKER));
    expect(comments).toHaveLength(1);
    expect(comments[0]!.body).toContain('A re-import from the source would bring:');
    expect(comments[0]!.body).toContain('request-parameter-added-required');
    const outputs = parseOutputFile(readFileSync(join(tmp, 'output'), 'utf8'));
    expect(outputs['breaking-count']).toBe('1');
    expect(outputs['report-path']).toBe(join(tmp, 'svc-report.json'));
    // The bundle resolved no package from disk: there is none next to it or above it in the temp dir.
    expect(() => execFileSync('ls', [join(actionDir, 'node_modules')], { stdio: 'ignore' })).toThrow();
  });
});
