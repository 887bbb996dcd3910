/**
 * What a reviewer sees in the pull-request comment of a large change, driven as the consumer drives it:
 * runAction against a stand-in GitHub API on loopback and a real git repository. Two folders: a big one
 * whose committed re-import brings hundreds of documentation-only and breaking-but-disabled changes with one
 * breaking change to an enabled tool late in the alphabet, and a small one with breaking changes and hand
 * edits to enabled tools' inputSchema and annotations. Every folder must appear within GitHub's limit,
 * each leading with what hits enabled tools, with counts that match what it lists.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify } from 'yaml';
import { COMMENT_MARKER } from '../action/src/comment.js';
import type { SvcEngine } from '../action/src/engine.js';
import { historyEndpointDiff } from '../action/src/history-diff.js';
import { runAction } from '../action/src/run-action.js';
import { type FakeGitHub, startFakeGitHub } from '../action/testing/fake-github.js';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { endpoint, prefixed, serverFolder, type TestTool } from '../generator/testing/server-folder.js';
import type { FolderFiles } from '../folder/model.js';
import type { Endpoint } from '../schemas/types.js';

const GITHUB_LIMIT = 65_536;
const engine: SvcEngine = {
  endpointDiff: historyEndpointDiff,
  reimport: () => Promise.reject(new Error('no source to re-import')),
};

const N = 600;
const pad = (i: number) => String(i).padStart(3, '0');
const param = (required: boolean) => ({
  name: 'include_everything_about_the_resource',
  in: 'query' as const,
  required,
  schema: { type: 'string' },
});

/** The big folder's endpoints: at v2 two in three gain a required parameter, the rest a new summary. */
function bigEndpoints(version: 1 | 2): Endpoint[] {
  return Array.from({ length: N }, (_, i) => {
    const breaking = version === 2 && i % 3 !== 1;
    return endpoint('GET', `/resources/r${pad(i)}/items`, {
      summary: version === 1 ? 'List items' : i % 3 === 1 ? 'List the items' : 'List items',
      parameters: [param(breaking)],
    });
  });
}
const bigTools = (): TestTool[] =>
  Array.from({ length: N }, (_, i) => ({
    key: `list_r${pad(i)}`,
    name: `list_r${pad(i)}`,
    // The one enabled tool sits late in the alphabet, behind hundreds of other rows.
    enabled: i === 597,
    method: 'GET' as const,
    path: `/resources/r${pad(i)}/items`,
  }));

const smallV1 = ['a', 'b', 'c', 'd', 'e'].map((x) =>
  endpoint('POST', `/${x}`, { parameters: [param(false)] }),
);
const smallV2 = smallV1.map((e, i) => (i < 3 ? { ...e, parameters: [param(true)] } : e));
const smallTools: TestTool[] = ['a', 'b', 'c', 'd', 'e'].map((x) => ({
  key: `do_${x}`,
  name: `do_${x}`,
  enabled: true,
  method: 'POST' as const,
  path: `/${x}`,
}));

function editTool(
  files: FolderFiles,
  key: string,
  edit: (tool: Record<string, unknown>) => void,
): FolderFiles {
  const path = `Tools/${key}.yaml`;
  const tool = parseYaml(files[path]!) as Record<string, unknown>;
  edit(tool);
  files[path] = stringify(tool);
  return files;
}

function smallFolder(version: 1 | 2): FolderFiles {
  let files = serverFolder('small', smallTools, version === 1 ? [smallV1] : [smallV1, smallV2]);
  files = editTool(files, 'do_d', (t) => {
    t['inputSchema'] = {
      type: 'object',
      properties: { q: { type: 'string' }, limit: { type: 'integer', maximum: 100 } },
      ...(version === 2 ? {} : {}),
    };
    if (version === 2) t['inputSchema'] = { type: 'object', properties: { q: { type: 'string' } } };
  });
  if (version === 2) {
    files = editTool(files, 'do_e', (t) => {
      (t['annotations'] as Record<string, unknown>)['destructiveHint'] = true;
    });
  }
  return files;
}

function bigFolder(version: 1 | 2): FolderFiles {
  const files = serverFolder(
    'big',
    bigTools(),
    version === 1 ? [bigEndpoints(1)] : [bigEndpoints(1), bigEndpoints(2)],
  );
  if (version === 2) {
    for (let i = 0; i < N; i++) {
      const path = `Tools/list_r${pad(i)}.yaml`;
      files[path] = files[path]!.replace(
        /^description: .*$/m,
        `description: Lists the items of resource r${pad(i)}, newly worded by the API authors.`,
      );
    }
  }
  return files;
}

let repo: TestRepo;
let gh: FakeGitHub;

beforeAll(async () => {
  gh = await startFakeGitHub({ owner: 'acme', repo: 'apis' });
  repo = createTestRepo();
});
afterAll(async () => {
  await gh.close();
  repo.cleanup();
});

describe('the pull-request comment of a large change', () => {
  it('shows every folder within the limit, leading with what hits enabled tools, and links the full report', async () => {
    repo.write({ ...prefixed('mcp/big', bigFolder(1)), ...prefixed('mcp/small', smallFolder(1)) });
    const base = repo.commit('base');
    repo.git('checkout', '-q', '-b', 'pr');
    repo.write({ ...prefixed('mcp/big', bigFolder(2)), ...prefixed('mcp/small', smallFolder(2)) });
    const head = repo.commit('re-import and hand edits');

    const tmp = mkdtempSync(join(tmpdir(), 'svc-action-review-'));
    writeFileSync(
      join(tmp, 'event.json'),
      JSON.stringify({ pull_request: { number: 7, base: { sha: base, ref: 'main' }, head: { sha: head } } }),
    );
    const env = {
      GITHUB_EVENT_NAME: 'pull_request',
      GITHUB_EVENT_PATH: join(tmp, 'event.json'),
      GITHUB_REPOSITORY: 'acme/apis',
      GITHUB_API_URL: gh.url,
      GITHUB_SERVER_URL: 'https://github.example.test',
      GITHUB_RUN_ID: '4242',
      GITHUB_WORKSPACE: repo.dir,
      GITHUB_STEP_SUMMARY: join(tmp, 'summary.md'),
      RUNNER_TEMP: tmp,
      'INPUT_FAIL-ON': 'none',
    };
    const result = await runAction({ env, engine, fetch, log: () => {} });
    expect(result.comment?.action).toBe('created');
    const body = gh.comments.find((c) => c.body.startsWith(COMMENT_MARKER))!.body;
    const summary = readFileSync(join(tmp, 'summary.md'), 'utf8');

    // The whole report would not fit a comment; the comment still does, and holds both folders.
    expect(summary.length).toBeGreaterThan(GITHUB_LIMIT);
    expect(body.length).toBeLessThanOrEqual(GITHUB_LIMIT);
    const big = result.results.find((r) => r.folder === 'mcp/big')!;
    const small = result.results.find((r) => r.folder === 'mcp/small')!;
    // small: three endpoints with a newly required parameter, and a property removed by hand: 4 breaking.
    expect(small.breaking).toBe(4);
    expect(big.breaking).toBe(1);
    const sections = body.split(/^#### /m).slice(1);
    const section = (folder: string) => sections.find((s) => s.startsWith(`\`${folder}\``)) ?? '';
    expect(section('mcp/small')).toContain('🔴 4 breaking changes hitting enabled tools');
    expect(section('mcp/big')).toContain('🔴 1 breaking change hitting enabled tools');

    // Each folder leads with what hits enabled tools, as many 🔴 lines as its header counts.
    for (const r of [big, small]) {
      const text = section(r.folder);
      const lead = text.slice(text.indexOf('**Needs review')).split(/\n\n(?=\*\*|<details>|_)/)[0] ?? '';
      expect(lead.split('\n').filter((l) => l.startsWith('- 🔴')).length, r.folder).toBe(r.breaking);
      expect(text.indexOf('**Needs review')).toBe(text.indexOf('\n\n**') + 2);
    }
    expect(section('mcp/big')).toContain(
      '- 🔴 `GET /resources/r597/items` changed — hits an enabled tool (`list_r597`)',
    );
    // Hand edits to an enabled tool's inputSchema and annotations are shown, with what changed.
    expect(section('mcp/small')).toMatch(
      /- 🔴 tool `do_d` \(`POST \/d`\) input changed: hand edit to inputSchema; property removed: limit/,
    );
    expect(section('mcp/small')).toContain(
      '- 🟠 tool `do_e` (`POST /e`) input changed: hand edit to annotations; annotations.destructiveHint: false → true',
    );
    // Documentation-only changes are one line each, not 600 table rows or 200 endpoint entries.
    expect(section('mcp/big')).toMatch(
      /- 📝 600 tools re-described \(documentation only\): `list_r597 \(enabled\)`, /,
    );
    expect(section('mcp/big')).toMatch(/- 📝 200 endpoints changed \(documentation only\): /);
    expect(body).not.toContain('| description changed |');
    // The big folder was cut to its share, and says where the rest is.
    expect(section('mcp/big')).toContain('cut to fit the comment');
    expect(body).toContain('[this workflow run](https://github.example.test/acme/apis/actions/runs/4242)');
    // The job summary holds everything.
    expect(summary).toContain('`GET /resources/r000/items` changed');
    expect(summary).toContain('`GET /resources/r596/items` changed');
  });
});
