/**
 * Merge mode end to end: a real repository whose server folder was made by svc's own import from a document
 * in the same repository; a push changes the document; runAction re-imports, commits once with the summary
 * and the marker trailer, pushes to a bare origin, and does nothing on its own commit or when nothing changed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_TRAILER } from '../action/src/merge-mode.js';
import { parseOutputFile } from '../action/src/outputs.js';
import { runAction } from '../action/src/run-action.js';
import { svcEngine } from '../action/src/svc-engine.js';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { importFolder } from '../generator/import/index.js';
import { parse as parseYaml } from 'yaml';
import type { SvcConfig } from '../schemas/types.js';

const TOKEN = 'ghs_mergetoken9876543210';
const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/action/${name}`, import.meta.url), 'utf8');

let repo: TestRepo;

beforeAll(async () => {
  repo = createTestRepo();
  repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml'), 'README.md': '# apis\n' });
  const dir = join(repo.dir, 'mcp', 'pets');
  const config = parseYaml(
    configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' }).replace(
      'provider: manual',
      'provider: openapi',
    ),
  ) as SvcConfig;
  const first = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
  expect(first.status).toBe('complete');
  // The user enables the tool of GET /pets/{petId}, which v2 breaks.
  const toolFile = Object.keys(first.files).find(
    (p) =>
      p.startsWith('Tools/') &&
      /path: \/pets\/\{petId\}\n/.test(first.files[p] ?? '') &&
      /method: GET/.test(first.files[p] ?? ''),
  );
  expect(toolFile).toBeDefined();
  const full = join(dir, toolFile!);
  writeFileSync(full, readFileSync(full, 'utf8').replace('enabled: false', 'enabled: true'));
  repo.commit('add the pets server');
  repo.git('push', '-q', 'origin', 'main');
  await repo.serve();
});

afterAll(() => repo.cleanup());

function checkout(): string {
  return repo.checkout(mkdtempSync(join(repo.root, 'checkout-')));
}

async function runPush(workspace: string, message: string, inputs: Record<string, string> = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-merge-'));
  const eventPath = join(tmp, 'event.json');
  writeFileSync(eventPath, JSON.stringify({ ref: 'refs/heads/main', head_commit: { message } }));
  const env: Record<string, string> = {
    GITHUB_EVENT_NAME: 'push',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REF: 'refs/heads/main',
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: 'http://127.0.0.1:9',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: join(tmp, 'output'),
    GITHUB_STEP_SUMMARY: join(tmp, 'summary'),
    RUNNER_TEMP: tmp,
    'INPUT_GITHUB-TOKEN': TOKEN,
    ...inputs,
  };
  writeFileSync(env['GITHUB_OUTPUT']!, '');
  const lines: string[] = [];
  const result = await runAction({ env, engine: svcEngine, log: (l) => lines.push(l) });
  return { result, lines, outputs: parseOutputFile(readFileSync(env['GITHUB_OUTPUT']!, 'utf8')) };
}

const originLog = () =>
  execFileSync('git', ['log', '--format=%H%x00%an%x00%B%x01', 'main'], { cwd: repo.origin, encoding: 'utf8' })
    .split('\x01')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((s) => {
      const [sha = '', author = '', body = ''] = s.split('\0');
      return { sha, author, body };
    });

describe('merge mode', () => {
  it('re-imports after a push that changed the document, commits once and pushes', async () => {
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    repo.commit('petstore v2');
    repo.git('push', '-q', 'origin', 'main');
    const before = originLog().length;
    const { result, outputs, lines } = await runPush(checkout(), 'petstore v2', { 'INPUT_FAIL-ON': 'none' });
    expect(result.mode).toBe('merge');
    expect(result.commit).toMatch(/^[0-9a-f]{40}$/);
    const log = originLog();
    expect(log).toHaveLength(before + 1);
    expect(log[0]!.sha).toBe(result.commit);
    expect(log[0]!.author).toBe('github-actions[bot]');
    expect(log[0]!.body).toContain('chore(mcp): re-import API descriptions');
    expect(log[0]!.body).toContain('- mcp/pets: ');
    expect(log[0]!.body.split('\n')).toContain(IMPORT_TRAILER);
    const files = execFileSync('git', ['ls-tree', '-r', '--name-only', 'main', 'mcp/pets/Tools'], {
      cwd: repo.origin,
      encoding: 'utf8',
    });
    expect(files).toMatch(/create/i);
    expect(outputs['changed']).toBe('true');
    expect(outputs['breaking-count']).toBe('1');
    expect(result.exitCode).toBe(0);
    expect(lines.join('\n')).not.toContain(TOKEN);
  });

  it('does nothing on its own commit', async () => {
    const own = originLog()[0]!;
    const before = originLog().length;
    const { result, outputs } = await runPush(checkout(), own.body);
    expect(result.skipped).toContain('own re-import commit');
    expect(result.commit).toBeUndefined();
    expect(originLog()).toHaveLength(before);
    expect(outputs['changed']).toBe('false');
    expect(result.exitCode).toBe(0);
  });

  it('makes no commit when the re-import changes nothing', async () => {
    const workspace = checkout();
    const before = originLog().length;
    const { result, outputs, lines } = await runPush(workspace, 'docs: reword');
    expect(result.commit).toBeUndefined();
    expect(originLog()).toHaveLength(before);
    expect(outputs['changed']).toBe('false');
    expect(lines).toContain('svc: nothing changed; no commit');
    expect(result.exitCode).toBe(0);
  });

  it('replays its commit when the branch moved during the run', async () => {
    repo.git('checkout', '-q', 'main');
    repo.git('pull', '-q', '--ff-only', 'origin', 'main');
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml') });
    repo.commit('back to petstore v1');
    repo.git('push', '-q', 'origin', 'main');
    const workspace = checkout();
    // Another merge lands while the action runs.
    repo.write({ 'README.md': '# apis, busy\n' });
    const other = repo.commit('docs: busy');
    repo.git('push', '-q', 'origin', 'main');
    const { result, lines } = await runPush(workspace, 'back to petstore v1', { 'INPUT_FAIL-ON': 'none' });
    expect(result.exitCode).toBe(0);
    expect(lines.some((l) => l.includes('had moved; replayed the commit'))).toBe(true);
    const log = originLog();
    expect(log[0]!.sha).toBe(result.commit);
    expect(log[0]!.body.split('\n')).toContain(IMPORT_TRAILER);
    expect(log[1]!.sha).toBe(other);
  });
});
