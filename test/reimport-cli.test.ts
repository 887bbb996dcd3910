/** `svc import`, `svc diff` and `svc history` run in-process through the CLI frame, on a real folder. */
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFolder } from '../folder/index.js';
import type { ImportReport } from '../schemas/types.js';
import { importedPetsFolder } from './helpers/pets-folder.js';
import { svc } from './helpers/run-cli.js';

let root: string;
let dir: string;

/** `svc <argv>` in-process, from the folder's parent directory. */
const cli = (...argv: string[]) => svc(argv, { cwd: root });

beforeAll(async () => {
  ({ root, dir } = await importedPetsFolder('svc-reimport-cli-'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('svc diff / import / history', () => {
  it('svc diff writes nothing and fails when a breaking change hits an enabled tool', async () => {
    // Upstream breaking changes to disabled tools are reported but do not fail.
    const quiet = await cli('diff', 'pets', '--openapi', 'v2.yaml', '--fail-on', 'breaking');
    expect(quiet.code).toBe(0);
    const tool = path.join(dir, 'Tools', 'findPetsByStatus.yaml');
    await writeFile(tool, (await readFile(tool, 'utf8')).replace('enabled: false', 'enabled: true'));
    const before = await readFolder(dir);
    const json = await cli(
      'diff',
      'pets',
      '--openapi',
      'v2.yaml',
      '--format',
      'json',
      '--fail-on',
      'breaking',
    );
    expect(json.code).toBe(1);
    const report = JSON.parse(json.stdout) as ImportReport;
    expect(report.counts.endpoints.breaking).toBe(5);
    expect(json.stderr).toContain('--fail-on breaking');
    const md = await cli('diff', 'pets', '--openapi', 'v2.yaml', '--format', 'markdown');
    expect(md.code).toBe(0);
    expect(md.stdout.split('\n')[0]).toBe(`**${report.summary}**`);
    const same = await cli('diff', 'pets', '--fail-on', 'any');
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(/^Nothing changed/);
    expect(await readFolder(dir)).toEqual(before);
  });

  it('rejects a bad --fail-on or --format as a usage error', async () => {
    expect((await cli('diff', 'pets', '--fail-on', 'sometimes')).code).toBe(2);
    expect((await cli('diff', 'pets', '--format', 'html')).code).toBe(2);
  });

  it('svc import prints the settled checklist and the report, and svc history lists both imports', async () => {
    const run = await cli('import', 'pets', '--openapi', 'v2.yaml');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/✓ Tools\s+16/);
    expect(run.stdout).toMatch(/✓ Resources\s+0/);
    expect(run.stdout).toContain('- DELETE /user/{username}  [breaking]');
    expect(await readFile(path.join(dir, 'Tools', 'getPetHistory.yaml'), 'utf8')).toContain('enabled: false');

    const failed = await cli('import', 'pets', '--openapi', 'missing.yaml');
    expect(failed.code).toBe(3);
    expect(failed.stdout).toMatch(/✗ Tools/);

    const history = await cli('history', 'pets');
    expect(history.code).toBe(0);
    const lines = history.stdout.trim().split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^#1 .* Complete {2}changed +[0-9a-f]{12} {2}First import/);
    expect(lines[1]).toMatch(/^#2 .* Complete {2}changed .*2 added, 2 removed, 7 changed \(5 breaking\)/);
    expect(lines[2]).toMatch(/^#3 .* Failed .*SOURCE_NOT_FOUND/);
    const records = JSON.parse((await cli('history', 'pets', '--json')).stdout);
    expect(records[1].report.counts.endpoints.added).toBe(2);
    const second = await cli('history', 'pets', '2');
    expect(second.stdout.split('\n')[0]).toBe(`**${records[1].summary}**`);
    expect((await cli('history', 'pets', '9')).code).toBe(2);
  });

  it('a folder that no longer loads: the import fails, every file keeps its bytes, the failure is recorded', async () => {
    const broken = path.join(dir, 'Tools', 'getInventory.yaml');
    await writeFile(broken, 'name: [unclosed\n');
    const before = await readFolder(dir);
    const run = await cli('import', 'pets');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('FOLDER_INVALID');
    const after = await readFolder(dir);
    const added = Object.keys(after).filter((p) => !(p in before));
    expect(added).toEqual(['.svc/history/000004.json']);
    for (const [p, text] of Object.entries(before)) expect(after[p]).toBe(text);
    expect(JSON.parse(after['.svc/history/000004.json']!)).toMatchObject({
      status: 'failed',
      error: { code: 'FOLDER_INVALID' },
    });
  });
});
