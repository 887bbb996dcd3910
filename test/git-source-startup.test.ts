/**
 * Git sources cost nothing to imports that do not use them: `svc init --openapi` and `svc import`
 * of a file source load neither isomorphic-git nor the GitHub/GitLab clients.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, ensureBuilt, REPO_ROOT } from './helpers/built-cli.js';

beforeAll(ensureBuilt, 120_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-git-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function modulesLoadedBy(args: string[]): string[] {
  const out = path.join(scratch, `loads-${Math.random().toString(36).slice(2)}.txt`);
  execFileSync(
    process.execPath,
    ['--import', path.join(REPO_ROOT, 'test/helpers/record-loads.mjs'), BUILT_CLI, ...args],
    { cwd: scratch, env: { ...process.env, SVC_RECORD_LOADS: out }, stdio: 'ignore' },
  );
  return readFileSync(out, 'utf8').split('\n').filter(Boolean);
}

const GIT_CODE =
  /node_modules\/(isomorphic-git|@octokit)\/|\/dist\/generator\/sources\/(git-source|git-connection)/;

describe('git sources at startup', () => {
  it('init and import of a file source load no git client', () => {
    const petstore = path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml');
    const dir = path.join(scratch, 'pet');
    const init = modulesLoadedBy(['init', dir, '--name', 'Petstore', '--openapi', petstore]);
    expect(init.some((u) => u.includes('/dist/generator/import/'))).toBe(true);
    expect(init.filter((u) => GIT_CODE.test(u))).toEqual([]);
    const again = modulesLoadedBy(['import', dir]);
    expect(again.filter((u) => GIT_CODE.test(u))).toEqual([]);
  }, 60_000);
});
