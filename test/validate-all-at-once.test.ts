/**
 * `svc validate` reports every problem of a folder in one run (issue 17): a schema violation in
 * one file no longer hides a tool that cannot work in another, and an unknown key or a value
 * outside an enum names the close known one. Real folder on disk, the CLI in-process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';
import { svc } from './helpers/run-cli.js';

let folder: TempFolder;

beforeAll(async () => {
  folder = await copyFixtureFolder('fixtures/runtime/basic', 'http://127.0.0.1:1/api', (config) =>
    config.replace('mode: api_key', 'mode: api_kee'),
  );
  const edit = async (file: string, change: (text: string) => string) => {
    const path = join(folder.dir, 'Tools', file);
    await writeFile(path, change(await readFile(path, 'utf8')));
  };
  // A typo'd key (schema), and in another file a required name no property declares (tool check).
  await edit('echo_get.yaml', (t) => t.replace(/^sortOrder:/m, 'sortOrdr:'));
  await edit('echo_json.yaml', (t) => t.replace(/^classification: .*$/m, 'classification: creat'));
  await edit('structured.yaml', (t) =>
    t.replace('inputSchema:\n  type: object\n', 'inputSchema:\n  type: object\n  required: [ghost]\n'),
  );
});
afterAll(async () => {
  await folder?.remove();
});

it('names every problem at once, with did-you-mean for keys and values', async () => {
  const run = await svc(['validate', folder.dir], { cwd: folder.dir });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/config\.yaml.*must be one of .*did you mean "api_key"\?/);
  expect(run.stderr).toMatch(/echo_get\.yaml.*has unknown key "sortOrdr"; did you mean "sortOrder"\?/);
  expect(run.stderr).toMatch(/echo_json\.yaml.*did you mean "create"\?/);
  // The tool check of a file that loaded, in the same run.
  expect(run.stderr).toMatch(/structured\.yaml.*ghost/);
});
