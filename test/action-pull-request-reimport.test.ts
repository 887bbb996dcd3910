/**
 * Pull-request mode with svc's real import: a folder imported from a document kept in the same repository.
 * A pull request that edits only the document gets a comment saying what a re-import would bring (dry run,
 * nothing written); a pull request that also commits the re-import shows the committed endpoint diff and an
 * up-to-date folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { COMMENT_MARKER } from '../action/src/comment.js';
import { runAction } from '../action/src/run-action.js';
import { svcEngine } from '../action/src/svc-engine.js';
import { type FakeGitHub, startFakeGitHub } from '../action/testing/fake-github.js';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { importFolder } from '../generator/import/index.js';
import { ENABLED_TOOL_HITS } from '../generator/report/index.js';
import type { SvcConfig } from '../schemas/types.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/action/${name}`, import.meta.url), 'utf8');
const now = () => new Date('2026-01-01T00:00:00Z');
let repo: TestRepo;
let gh: FakeGitHub;
let base: string;

beforeAll(async () => {
  repo = createTestRepo();
  repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml') });
  const config = parseYaml(
    configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' }),
  ) as SvcConfig;
  const dir = join(repo.dir, 'mcp', 'pets');
  const first = await importFolder({ dir, config, now });
  expect(first.status).toBe('complete');
  for (const [path, text] of Object.entries(first.files)) {
    if (path.startsWith('Tools/') && text.includes('path: /pets/{petId}') && text.includes('method: GET')) {
      writeFileSync(join(dir, path), text.replace('enabled: false', 'enabled: true'));
    }
  }
  base = repo.commit('pets server');
  gh = await startFakeGitHub({ owner: 'acme', repo: 'apis' });
});

afterAll(async () => {
  await gh.close();
  repo.cleanup();
});

async function runPr(workspace: string, head: string, number: number) {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-pr-'));
  writeFileSync(
    join(tmp, 'event.json'),
    JSON.stringify({ pull_request: { number, base: { sha: base }, head: { sha: head } } }),
  );
  const env = {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: join(tmp, 'event.json'),
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: gh.url,
    GITHUB_WORKSPACE: workspace,
    RUNNER_TEMP: tmp,
  };
  return runAction({ env, engine: svcEngine, fetch, log: () => {} });
}

const status = (cwd: string) => execFileSync('git', ['status', '--porcelain'], { cwd, encoding: 'utf8' });

describe('pull_request mode with a document in the repository', () => {
  it('shows what a re-import would bring when only the document changed, writing nothing', async () => {
    repo.git('checkout', '-q', '-B', 'doc-only', base);
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    const head = repo.commit('petstore v2');
    const result = await runPr(repo.dir, head, 1);
    expect(result.results.map((r) => r.folder)).toEqual(['mcp/pets']);
    const folder = result.results[0]!;
    expect(folder.toolChanges).toEqual([]);
    expect(folder.endpointChanges).toEqual([]);
    expect(folder.reimport?.changed).toBe(true);
    expect(folder.breaking).toBeGreaterThanOrEqual(1);
    const body = gh.comments.find((c) => c.issue === 1)!.body;
    expect(body.startsWith(COMMENT_MARKER)).toBe(true);
    expect(body).toContain('A re-import from the source would bring:');
    expect(body).toContain('/pets/{petId}');
    expect(result.exitCode).toBe(1);
    expect(status(repo.dir)).toBe('');
  });

  it('check mode (schedule): reports that a re-import would change the folder, writes and comments nothing', async () => {
    repo.git('checkout', '-q', 'doc-only');
    const comments = gh.comments.length;
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-check-'));
    writeFileSync(join(tmp, 'out'), '');
    const env = {
      GITHUB_EVENT_NAME: 'schedule',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REPOSITORY: 'acme/apis',
      GITHUB_API_URL: gh.url,
      GITHUB_WORKSPACE: repo.dir,
      GITHUB_OUTPUT: join(tmp, 'out'),
      RUNNER_TEMP: tmp,
      'INPUT_FAIL-ON': 'none',
    };
    const result = await runAction({ env, engine: svcEngine, fetch, log: () => {} });
    expect(result.mode).toBe('check');
    expect(result.outputs.changed).toBe('true');
    expect(result.results[0]?.reimport?.changed).toBe(true);
    expect(result.exitCode).toBe(0);
    expect(gh.comments.length).toBe(comments);
    expect(status(repo.dir)).toBe('');
  });

  it('shows the committed diff when the pull request carries the re-import, and an up-to-date folder', async () => {
    repo.git('checkout', '-q', '-B', 'reimported', base);
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    // What `svc diff` says before the re-import is committed: the comment must count the same.
    const previewReport = (await importFolder({ dir: join(repo.dir, 'mcp', 'pets'), dryRun: true, now }))
      .report;
    const preview = previewReport.counts;
    const again = await importFolder({ dir: join(repo.dir, 'mcp', 'pets'), now });
    expect(again.status).toBe('complete');
    const head = repo.commit('petstore v2, re-imported');
    const result = await runPr(repo.dir, head, 2);
    const folder = result.results[0]!;
    expect(folder.reimport?.changed).toBe(false);
    const kinds = folder.endpointChanges.map((c) => `${c.kind} ${c.endpoint}`).sort();
    expect(kinds).toEqual(['added POST /pets', 'changed GET /pets/{petId}', 'removed DELETE /pets/{petId}']);
    const body = gh.comments.find((c) => c.issue === 2)!.body;
    expect(body).toContain('`GET /pets/{petId}` changed — hits an enabled tool');
    expect(body).toContain('nothing; the folder is up to date with its source');
    const e = preview.endpoints;
    expect(body).toContain(
      `endpoints: ${e.added} added, ${e.removed} removed, ${e.changed} changed (${e.breaking} breaking)`,
    );
    expect(result.outputs['breaking-count']).toBe(String(folder.breaking));
    expect(folder.breaking).toBeGreaterThanOrEqual(1);
    expect(folder.breaking).toBe(previewReport.warnings.filter((w) => ENABLED_TOOL_HITS.has(w.id)).length);
    expect(result.exitCode).toBe(1);
  });

  it('check mode: an enabled tool whose endpoint is gone fails the check, and the summary says why', async () => {
    repo.git('checkout', '-q', '-B', 'stale-enabled', base);
    const dir = join(repo.dir, 'mcp', 'pets');
    // Enable the tool of DELETE /pets/{petId}, then re-import v2 (which removes that endpoint) and commit.
    for (const name of readdirSync(join(dir, 'Tools'))) {
      const file = join(dir, 'Tools', name);
      const text = readFileSync(file, 'utf8');
      if (text.includes('path: /pets/{petId}') && text.includes('method: DELETE'))
        writeFileSync(file, text.replace('enabled: false', 'enabled: true'));
    }
    repo.commit('enable delete');
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    expect((await importFolder({ dir, now })).status).toBe('complete');
    repo.commit('petstore v2, re-imported');
    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-check-'));
    const env = {
      GITHUB_EVENT_NAME: 'schedule',
      GITHUB_REF: 'refs/heads/main',
      GITHUB_REPOSITORY: 'acme/apis',
      GITHUB_API_URL: gh.url,
      GITHUB_WORKSPACE: repo.dir,
      GITHUB_STEP_SUMMARY: join(tmp, 'summary.md'),
      RUNNER_TEMP: tmp,
    };
    const result = await runAction({ env, engine: svcEngine, fetch, log: () => {} });
    expect(result.mode).toBe('check');
    expect(result.results[0]?.reimport?.changed).toBe(false);
    expect(result.exitCode).toBe(1);
    const summary = readFileSync(join(tmp, 'summary.md'), 'utf8');
    expect(summary).not.toContain('Nothing to report');
    expect(summary).toContain('1 breaking change hitting enabled tools');
    expect(summary).toMatch(
      /- 🔴 re-import: enabled tool \S+ calls DELETE \/pets\/\{petId\}, which the API removed/,
    );
  });
});
