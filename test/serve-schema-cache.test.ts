/**
 * `svc validate` remembers the schemas it found clean (folder/schema-check-cache.ts) and `svc serve`
 * does not check those again at boot. A schema with a problem is never remembered: validate and
 * the runtime's gate refuse it, naming the file and field, however warm the cache.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { SvcError } from '../core/svc-error.js';
import { openSchemaCheckCache } from '../folder/schema-check-cache.js';
import { createConfigStore, loadFolderDir } from '../runtime/index.js';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';
import { svc } from './helpers/run-cli.js';

let folder: TempFolder;
let cache: string;

beforeAll(async () => {
  folder = await copyFixtureFolder('fixtures/runtime/basic', 'http://127.0.0.1:1/api');
  cache = await mkdtemp(join(tmpdir(), 'svc-cache-'));
});
afterAll(async () => {
  await folder?.remove();
  await rm(cache, { recursive: true, force: true });
});

it('validate fills the cache, the runtime gate uses it, and a broken schema is refused all the same', async () => {
  const env = { SVC_CACHE_DIR: cache };
  expect((await svc(['validate', folder.dir], { cwd: folder.dir, env })).code).toBe(0);
  const [file] = await readdir(cache);
  const held = (await readFile(join(cache, file!), 'utf8')).trim().split('\n');
  expect(held.length).toBeGreaterThan(5);
  // A second run finds the same schemas held and adds nothing.
  expect((await svc(['validate', folder.dir], { cwd: folder.dir, env })).code).toBe(0);
  expect((await readFile(join(cache, file!), 'utf8')).trim().split('\n')).toEqual(held);
  const { folder: model } = await loadFolderDir(folder.dir);
  expect(
    createConfigStore(model, { cleanSchemas: openSchemaCheckCache(cache) }).current().tools.size,
  ).toBeGreaterThan(0);

  // A served tool whose input schema loops: clean to every check but Ajv's compile.
  const tool = join(folder.dir, 'Tools', 'structured.yaml');
  await writeFile(
    tool,
    (await readFile(tool, 'utf8')).replace('    q: { type: string }', '    q: { $ref: "#/properties/q" }'),
  );
  const run = await svc(['validate', folder.dir], { cwd: folder.dir, env });
  expect(run.code).not.toBe(0);
  expect(run.stderr).toMatch(/structured\.yaml.*inputSchema cannot be compiled/);
  // The runtime's gate (no compiling) with the cache: a required name nobody declares is still found.
  await writeFile(
    tool,
    (await readFile(tool, 'utf8')).replace(
      '  additionalProperties: false\n',
      '  additionalProperties: false\n  required: [ghost]\n',
    ),
  );
  const { folder: broken } = await loadFolderDir(folder.dir);
  let refused: unknown;
  try {
    createConfigStore(broken, { cleanSchemas: openSchemaCheckCache(cache) });
  } catch (error) {
    refused = error;
  }
  expect(refused).toMatchObject({ code: 'FOLDER_INVALID', message: expect.stringMatching(/ghost/) });
  expect((refused as SvcError).describe()).toMatch(/Tools\/structured\.yaml/);
});
