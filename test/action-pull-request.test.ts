/**
 * Pull-request mode end to end: runAction against a fake GitHub REST API on loopback and a real git
 * repository (a shallow clone of a bare origin, as actions/checkout leaves it) with a base and head commit.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMENT_MARKER } from '../action/src/comment.js';
import type { SvcEngine } from '../action/src/engine.js';
import { historyEndpointDiff } from '../action/src/history-diff.js';
import { parseOutputFile } from '../action/src/outputs.js';
import { runAction } from '../action/src/run-action.js';
import { type FakeGitHub, startFakeGitHub } from '../action/testing/fake-github.js';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { endpoint, prefixed, serverFolder, type TestTool } from '../generator/testing/server-folder.js';

const TOKEN = 'ghs_testtoken0123456789';
const PR = 42;

/** Manual-source folders: nothing to re-import, so the engine's re-import must never run. */
const engine: SvcEngine = {
  endpointDiff: historyEndpointDiff,
  reimport: () => Promise.reject(new Error('re-import must not run for a folder without a source')),
};

const idParam = (required: boolean) => ({
  name: 'expand',
  in: 'query' as const,
  required,
  schema: { type: 'string' },
});
const v1 = [
  endpoint('GET', '/pets'),
  endpoint('GET', '/pets/{id}', { parameters: [idParam(false)] }),
  endpoint('DELETE', '/pets/{id}'),
];
const tools: TestTool[] = [
  { key: 'list_pets', name: 'list_pets', enabled: true, method: 'GET', path: '/pets' },
  { key: 'get_pet', name: 'get_pet', enabled: true, method: 'GET', path: '/pets/{id}' },
  { key: 'delete_pet', name: 'delete_pet', enabled: false, method: 'DELETE', path: '/pets/{id}' },
];
const created: TestTool = {
  key: 'create_pet',
  name: 'create_pet',
  enabled: false,
  method: 'POST',
  path: '/pets',
};

let repo: TestRepo;
let gh: FakeGitHub;
let base: string;

beforeAll(async () => {
  repo = createTestRepo();
  repo.write({
    'README.md': '# demo\n',
    ...prefixed('mcp/pets', serverFolder('pets', tools, [v1])),
    ...prefixed('mcp/other', serverFolder('other', [tools[0]!], [v1.slice(0, 1)])),
  });
  base = repo.commit('base');
  repo.git('push', '-q', 'origin', 'main');
  gh = await startFakeGitHub({ owner: 'acme', repo: 'apis', token: TOKEN });
  await repo.serve();
  for (let i = 0; i < 105; i++) gh.addComment(PR, `review comment ${i}`);
});

afterAll(async () => {
  await gh.close();
  repo.cleanup();
});

/** Commits `files` on a PR branch from `base`, pushes it, and returns a shallow checkout of it. */
function pushHead(name: string, files: Record<string, string | null>): { sha: string; checkout: string } {
  repo.git('checkout', '-q', '-B', name, base);
  repo.write(files);
  const sha = repo.commit(name);
  repo.git('push', '-q', '-f', 'origin', name);
  const checkout = repo.checkout(join(repo.root, `checkout-${name}`), name);
  return { sha, checkout };
}

async function runPr(head: { sha: string; checkout: string }, inputs: Record<string, string> = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'svc-action-run-'));
  const eventPath = join(tmp, 'event.json');
  writeFileSync(
    eventPath,
    JSON.stringify({
      pull_request: { number: PR, base: { sha: base, ref: 'main' }, head: { sha: head.sha } },
    }),
  );
  const env: Record<string, string> = {
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: 'acme/apis',
    GITHUB_API_URL: gh.url,
    GITHUB_WORKSPACE: head.checkout,
    GITHUB_OUTPUT: join(tmp, 'output'),
    GITHUB_STEP_SUMMARY: join(tmp, 'summary'),
    RUNNER_TEMP: tmp,
    'INPUT_GITHUB-TOKEN': TOKEN,
    ...inputs,
  };
  writeFileSync(env['GITHUB_OUTPUT']!, '');
  const lines: string[] = [];
  const result = await runAction({ env, fetch, engine, log: (l) => lines.push(l) });
  const outputs = parseOutputFile(readFileSync(env['GITHUB_OUTPUT']!, 'utf8'));
  const summary = readFileSync(env['GITHUB_STEP_SUMMARY']!, 'utf8');
  return { result, outputs, summary, lines };
}

const ours = () => gh.comments.filter((c) => c.body.startsWith(COMMENT_MARKER));

describe('pull_request mode', () => {
  let firstId = 0;

  it('first run: one comment with the breaking change on an enabled tool, and the check fails', async () => {
    const v2 = [
      endpoint('GET', '/pets'),
      endpoint('POST', '/pets'),
      endpoint('GET', '/pets/{id}', { parameters: [idParam(true)] }),
      endpoint('DELETE', '/pets/{id}'),
    ];
    const head = pushHead('pr-1', prefixed('mcp/pets', serverFolder('pets', [...tools, created], [v1, v2])));
    const { result, outputs, summary, lines } = await runPr(head);
    expect(result.mode).toBe('pull_request');
    expect(result.comment?.action).toBe('created');
    expect(ours()).toHaveLength(1);
    const body = ours()[0]!.body;
    firstId = ours()[0]!.id;
    expect(body).toContain('`mcp/pets`');
    expect(body).not.toContain('`mcp/other`');
    expect(body).toContain('`GET /pets/{id}` changed — hits an enabled tool');
    expect(body).toContain('request-parameter-became-required');
    expect(body).toContain('`POST /pets` added');
    expect(body).toMatch(/\| added \| `create_pet` \| `POST \/pets` \| no \|/);
    expect(body).toContain('1 breaking change hitting enabled tools');
    expect(outputs['breaking-count']).toBe('1');
    expect(outputs['changed']).toBe('true');
    expect(JSON.parse(readFileSync(outputs['report-path']!, 'utf8')).breakingCount).toBe(1);
    expect(summary).toContain('`GET /pets/{id}` changed');
    expect(result.exitCode).toBe(1);
    expect(lines.some((l) => l.startsWith('::error::') && l.includes('breaking'))).toBe(true);
    expect(lines.join('\n')).not.toContain(TOKEN.slice(4));
    // Every API call carried the token; comments were looked up past the first page.
    expect(gh.requests.every((r) => r.authorization === `token ${TOKEN}`)).toBe(true);
    expect(gh.requests.some((r) => r.url.includes('page=2'))).toBe(true);
  });

  it('second push: the same comment is updated in place, nothing duplicated, others untouched', async () => {
    const v2b = [
      endpoint('GET', '/pets'),
      endpoint('POST', '/pets'),
      endpoint('GET', '/pets/{id}', { parameters: [idParam(false)] }),
      endpoint('DELETE', '/pets/{id}'),
    ];
    const head = pushHead('pr-2', prefixed('mcp/pets', serverFolder('pets', [...tools, created], [v1, v2b])));
    const { result, outputs } = await runPr(head);
    expect(result.comment).toEqual({ action: 'updated', id: firstId });
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.body).toContain('no breaking change hits an enabled tool');
    expect(ours()[0]!.body).not.toContain('request-parameter-became-required');
    expect(outputs['breaking-count']).toBe('0');
    expect(result.exitCode).toBe(0);
    expect(gh.comments.filter((c) => c.body.startsWith('review comment'))).toHaveLength(105);
    expect(gh.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
  });

  it('renaming an enabled tool is breaking; fail-on none reports it without failing', async () => {
    const renamed = tools.map((t) => (t.key === 'list_pets' ? { ...t, name: 'pets_list' } : t));
    const head = pushHead('pr-3', prefixed('mcp/pets', serverFolder('pets', renamed, [v1])));
    const { result, outputs } = await runPr(head, { 'INPUT_FAIL-ON': 'none' });
    expect(ours()[0]!.body).toContain('- 🔴 tool `pets_list` (`GET /pets`) renamed: list_pets → pets_list');
    expect(outputs['breaking-count']).toBe('1');
    expect(result.exitCode).toBe(0);
  });

  it('a run with nothing to report says so, in the same comment', async () => {
    const head = pushHead('pr-4', { 'mcp/pets/NOTES.md': 'just notes\n', 'README.md': '# demo, reworded\n' });
    const { result, outputs, summary } = await runPr(head);
    expect(result.comment).toEqual({ action: 'updated', id: firstId });
    expect(ours()).toHaveLength(1);
    expect(ours()[0]!.body).toContain(
      'Nothing to report: 1 server folder touched, no tool or endpoint changes.',
    );
    expect(summary).toContain('Nothing to report');
    expect(outputs['changed']).toBe('false');
    expect(result.exitCode).toBe(0);
  });

  it('reports a folder added and a folder removed by the pull request', async () => {
    const newTool: TestTool = { key: 'ping', name: 'ping', enabled: false, method: 'GET', path: '/ping' };
    const removedFolder = Object.fromEntries(
      Object.keys(prefixed('mcp/other', serverFolder('other', [tools[0]!], [v1.slice(0, 1)]))).map((p) => [
        p,
        null,
      ]),
    );
    const head = pushHead('pr-6', {
      ...removedFolder,
      ...prefixed('mcp/new', serverFolder('new', [newTool], [[endpoint('GET', '/ping')]])),
    });
    const { result, outputs } = await runPr(head, { 'INPUT_FAIL-ON': 'none' });
    const byFolder = Object.fromEntries(result.results.map((r) => [r.folder, r]));
    expect(Object.keys(byFolder).sort()).toEqual(['mcp/new', 'mcp/other']);
    expect(byFolder['mcp/new']!.endpointChanges.map((c) => `${c.kind} ${c.endpoint}`)).toEqual([
      'added GET /ping',
    ]);
    expect(byFolder['mcp/other']!.removed).toBe(true);
    // The removed folder's enabled tool disappears with it: breaking for its clients.
    expect(byFolder['mcp/other']!.toolChanges.map((c) => `${c.kind}:${c.level}`)).toEqual([
      'tool-removed:breaking',
    ]);
    expect(ours()[0]!.body).toContain('The pull request removes this server folder.');
    expect(outputs['breaking-count']).toBe('1');
  });

  it('a pull request that touches no server folder creates no comment on a fresh thread', async () => {
    const before = gh.comments.length;
    const head = pushHead('pr-5', { 'docs/x.md': 'x\n' });
    const { result } = await runPr(head, {});
    expect(result.results).toEqual([]);
    // Our comment exists on PR 42 already, so it is corrected rather than left stale.
    expect(result.comment?.action).toBe('updated');
    expect(ours()[0]!.body).toContain('Nothing to report: no server folder touched.');
    expect(gh.comments.length).toBe(before);
  });

  it('enabling many tools says what tools/list then costs: the mode flips to search (auto)', async () => {
    const many: TestTool[] = Array.from({ length: 45 }, (_, i) => ({
      key: `op_${i}`,
      name: `op_${i}`,
      enabled: true,
      method: 'GET',
      path: `/op/${i}`,
    }));
    const endpoints = many.map((t) => endpoint('GET', t.path));
    const head = pushHead(
      'pr-7',
      prefixed('mcp/pets', serverFolder('pets', [...tools, ...many], [v1, [...v1, ...endpoints]])),
    );
    const { result } = await runPr(head, { 'INPUT_FAIL-ON': 'none' });
    const pets = result.results.find((r) => r.folder === 'mcp/pets')!;
    expect(pets.toolsList?.before).toMatchObject({ mode: 'all', served: 2 });
    expect(pets.toolsList?.after).toMatchObject({ setting: 'auto', mode: 'search', served: 47 });
    expect(ours()[0]!.body).toMatch(
      /\*\*tools\/list:\*\* all, [\d.]+ (B|KB) \(2 tools listed\) → search, [\d.]+ KB \(47 tools found by search, 0 pinned; [\d.]+ KB if each were listed\)/,
    );
  });
});
