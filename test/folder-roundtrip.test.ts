/**
 * The folder contract end to end: model → files → disk → files → model gives back the same
 * model, and the same model always renders to the same bytes.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { loadFolder, readFolder, writeFolder } from '../folder/index.js';
import type { FolderModel } from '../folder/model.js';
import { sampleFolderModel } from '../folder/testing/sample-folder.js';
import { parseContent } from '../generator/content/index.js';
import { exportFolder, renderFolder } from '../generator/render/index.js';
import { readContentDir } from '../generator/sources/content-source.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-roundtrip-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function fixtureModel(): Promise<FolderModel> {
  const parsed = parseContent(await readContentDir('fixtures/content'));
  if (!parsed.ok) throw new Error(parsed.errors.map((e) => e.describe()).join('\n'));
  return { ...sampleFolderModel(), ...parsed.items, tools: sampleFolderModel().tools };
}

function load(files: Record<string, string>): FolderModel {
  const r = loadFolder(files);
  if (!r.ok) throw new Error(r.errors.map((e) => e.describe()).join('\n'));
  return r.folder;
}

test('loadFolder(renderFolder(model)) gives back the model (sample and fixture content)', async () => {
  for (const model of [sampleFolderModel(), await fixtureModel()]) {
    const loaded = load(renderFolder(model));
    const sorted = load(renderFolder(loaded));
    expect(loaded).toEqual(sorted);
    expect(loaded.config).toEqual(model.config);
    expect(new Set(loaded.tools)).toEqual(new Set(model.tools));
    for (const kind of ['skills', 'prompts', 'resources', 'docs', 'widgets'] as const) {
      expect(new Set(loaded[kind] as unknown[])).toEqual(new Set(model[kind] as unknown[]));
    }
  }
});

test('rendering twice gives identical bytes, and render(load(render(m))) is a fixed point', async () => {
  const model = await fixtureModel();
  const first = renderFolder(model, { openapi: '{"openapi":"3.1.0","info":{"title":"x","version":"1"}}' });
  const second = renderFolder(structuredClone(model), {
    openapi: '{"openapi":"3.1.0","info":{"title":"x","version":"1"}}',
  });
  expect(second).toEqual(first);
  expect(Object.keys(second)).toEqual(Object.keys(first));
  const again = renderFolder(load(first), {
    openapi: '{"openapi":"3.1.0","info":{"title":"x","version":"1"}}',
  });
  expect(again).toEqual(first);
});

test('write → read → load on real disk gives back the model; export leaves .svc out', async () => {
  const model = await fixtureModel();
  const files: Record<string, string> = { ...renderFolder(model), '.svc/history/0001.json': '{"n":1}\n' };
  const dir = join(base, 'server');
  await writeFolder(dir, files);
  const read = await readFolder(dir);
  expect(read).toEqual(files);
  expect(load(read)).toEqual(load(renderFolder(model)));
  const exported = exportFolder(read);
  expect(exported.server).toEqual(model.config);
  expect(Object.keys(exported.files).some((p) => p.startsWith('.svc'))).toBe(false);
  expect(exported.files['config.yaml']).toBe(files['config.yaml']);
});
