/**
 * `svc diff <dir> --base <commit>` in a git work tree, through the CLI's own entry: what the commits since
 * <commit> changed in the folder, the way the Action's pull-request comment shows it. A hand-kept (manual)
 * folder has nothing to re-import, so its committed change is the whole report; --fail-on breaking trips on
 * a renamed enabled tool; a base that is not a commit is a usage error.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestRepo } from '../generator/sources/testing/git-test-repo.js';
import { runCli } from '../cli/main.js';

const repo = createTestRepo();
afterAll(() => repo.cleanup());

async function svc(...argv: string[]) {
  let stdout = '';
  let stderr = '';
  const code = await runCli(argv, {
    stdout: (t) => {
      stdout += t;
    },
    stderr: (t) => {
      stderr += t;
    },
    cwd: repo.dir,
    env: {},
  });
  return { code, stdout, stderr };
}

describe('svc diff --base', () => {
  it('shows the committed change of a manual folder and fails on a breaking one', async () => {
    const init = await svc(
      'init',
      'mcp/crm',
      '--name',
      'CRM',
      '--manual',
      '--base-url',
      'https://crm.example.test/api',
    );
    expect(init.code, init.stderr).toBe(0);
    const add = await svc(
      'tool',
      'add',
      'mcp/crm',
      '--method',
      'GET',
      '--path',
      '/contacts/{id}',
      '--param',
      'id:path:string:required',
      '--name',
      'get_contact',
      '--enable',
    );
    expect(add.code, add.stderr).toBe(0);
    const base = repo.commit('crm');
    const file = join(repo.dir, 'mcp/crm/Tools/get_contact.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^name: get_contact$/m, 'name: contact_get'));
    repo.commit('rename');

    const run = await svc('diff', 'mcp/crm', '--base', base, '--format', 'markdown', '--fail-on', 'breaking');
    expect(run.code).toBe(1);
    expect(run.stdout).toContain(
      '- 🔴 tool `contact_get` (`GET /contacts/{id}`) renamed: get_contact → contact_get',
    );
    expect(run.stdout).toContain('nothing to re-import');
    expect(run.stderr).toContain('1 committed breaking change(s) hit enabled tools');

    const json = await svc('diff', 'mcp/crm', '--base', base, '--format', 'json');
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout).committed.toolChanges.map((c: { kind: string }) => c.kind)).toEqual([
      'tool-renamed',
    ]);
    const same = await svc('diff', 'mcp/crm', '--base', 'HEAD', '--fail-on', 'any');
    expect(same.code).toBe(0);

    const bad = await svc('diff', 'mcp/crm', '--base', 'no-such-ref');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('no-such-ref is not a commit');
  });
});
