import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startFakeGitHub } from '../testing/fake-github.js';
import { createTestRepo } from '../../generator/sources/testing/git-test-repo.js';
import { endpoint, prefixed, serverFolder } from '../../generator/testing/server-folder.js';
import type { SvcEngine } from './engine.js';
import type { FolderResult } from './folder-result.js';
import { historyEndpointDiff } from './history-diff.js';
import { runAction, shouldFail } from './run-action.js';

const engine: SvcEngine = {
  endpointDiff: historyEndpointDiff,
  reimport: () => Promise.reject(new Error('not expected')),
};
const tmp = mkdtempSync(join(tmpdir(), 'svc-run-action-'));
const repo = createTestRepo();
afterAll(() => repo.cleanup());

const result = (breaking: number, warnings: number, error?: string): FolderResult => ({
  folder: 'f',
  toolChanges: [],
  endpointChanges: [],
  breaking,
  warnings,
  ...(error ? { error } : {}),
});

describe('shouldFail', () => {
  it('follows fail-on, and always fails on a failed import', () => {
    expect(shouldFail('breaking', [result(1, 0)])).toContain('1 breaking');
    expect(shouldFail('breaking', [result(0, 3)])).toBeUndefined();
    expect(shouldFail('warning', [result(0, 3)])).toContain('3 warning');
    expect(shouldFail('none', [result(5, 5)])).toBeUndefined();
    expect(shouldFail('none', [result(0, 0, 'boom')])).toContain('failed');
    const gone: FolderResult = {
      ...result(1, 0),
      reimport: {
        status: 'complete',
        changed: false,
        summary: 'Nothing changed',
        markdown: '',
        breakingEnabled: 1,
        warnings: 0,
        hits: ['enabled tool del calls DELETE /x, which the API removed; it is kept and marked stale'],
      },
    };
    expect(shouldFail('breaking', [gone])).toBe(
      'svc: 1 breaking change(s) hit enabled tools (fail-on: breaking): f: enabled tool del calls DELETE /x, which the API removed; it is kept and marked stale',
    );
  });
});

describe('runAction', () => {
  it('fails with an ::error:: line on invalid inputs', async () => {
    const lines: string[] = [];
    const r = await runAction({ env: { INPUT_MODE: 'deploy' }, engine, log: (l) => lines.push(l) });
    expect(r.exitCode).toBe(1);
    expect(lines.some((l) => l.startsWith('::error::') && l.includes('mode'))).toBe(true);
  });

  it('fails when pull_request mode has no pull request event', async () => {
    const lines: string[] = [];
    const r = await runAction({
      env: { INPUT_MODE: 'pull_request', GITHUB_WORKSPACE: repo.dir },
      engine,
      log: (l) => lines.push(l),
    });
    expect(r.exitCode).toBe(1);
    expect(lines.join('\n')).toContain('needs a pull_request event');
  });

  it('warns instead of failing when the token may not comment (fork), and keeps the job summary', async () => {
    const tool = { key: 'a', name: 'a', enabled: true, method: 'GET' as const, path: '/a' };
    repo.write(prefixed('mcp/x', serverFolder('x', [tool], [[endpoint('GET', '/a')]])));
    const base = repo.commit('base');
    repo.write(
      prefixed('mcp/x', serverFolder('x', [{ ...tool, enabled: false }], [[endpoint('GET', '/a')]])),
    );
    const head = repo.commit('disable a');
    const gh = await startFakeGitHub({ owner: 'o', repo: 'r', readOnly: true });
    try {
      const event = join(tmp, 'event.json');
      writeFileSync(
        event,
        JSON.stringify({ pull_request: { number: 9, base: { sha: base }, head: { sha: head } } }),
      );
      const lines: string[] = [];
      const env = {
        GITHUB_EVENT_NAME: 'pull_request',
        GITHUB_EVENT_PATH: event,
        GITHUB_REPOSITORY: 'o/r',
        GITHUB_API_URL: gh.url,
        GITHUB_WORKSPACE: repo.dir,
        GITHUB_STEP_SUMMARY: join(tmp, 'summary.md'),
        RUNNER_TEMP: tmp,
        'INPUT_FAIL-ON': 'breaking',
      };
      const r = await runAction({ env, engine, fetch, log: (l) => lines.push(l) });
      expect(r.comment).toEqual({ action: 'failed', status: 403 });
      expect(lines.some((l) => l.startsWith('::warning::') && l.includes('HTTP 403'))).toBe(true);
      expect(readFileSync(join(tmp, 'summary.md'), 'utf8')).toContain('- 🟠 tool `a` (`GET /a`) disabled');
      expect(r.exitCode).toBe(0);
      expect(gh.comments).toEqual([]);
    } finally {
      await gh.close();
    }
  });
});
