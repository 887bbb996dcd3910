/**
 * Git sources cost nothing to imports that do not use them: `svc init --openapi` and `svc import`
 * of a file source load neither isomorphic-git nor the GitHub/GitLab clients.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from './helpers/built-cli.js';
import { modulesLoadedBy as modulesLoaded } from './helpers/modules-loaded.js';

beforeAll(ensureBuilt, 120_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-git-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const modulesLoadedBy = (args: string[]) => modulesLoaded(scratch, args);

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
