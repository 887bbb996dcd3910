/**
 * The atomic writer on a real rendered folder: a failure injected at EVERY filesystem step of a
 * re-write leaves the old folder byte-identical (user files included) and nothing beside it.
 */
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { readFolder, writeFolder } from '../folder/index.js';
import { sampleFolderModel, sampleTool } from '../folder/testing/sample-folder.js';
import { renderFolder } from '../generator/render/index.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-folder-write-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

test('a failure at any step of a re-write leaves the old folder exactly as it was', async () => {
  const dir = join(base, 'server');
  const v1 = { ...renderFolder(sampleFolderModel()), '.svc/history/0001.json': '{"seq":1}\n' };
  await writeFolder(dir, v1);
  await writeFile(join(dir, '.env'), 'SVC_UPSTREAM_SECRET=do-not-lose');
  await writeFile(join(dir, 'notes.md'), 'my notes');
  await mkdir(join(dir, '.git'));
  await writeFile(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');

  const model = sampleFolderModel();
  model.tools.push({ key: 'deleteOrder', file: 'Tools/deleteOrder.yaml', tool: sampleTool('deleteOrder') });
  model.docs.pop();
  model.widgets = [];
  model.tools[0]!.tool = { ...model.tools[0]!.tool, widget: undefined, enabled: true };
  const v2 = {
    ...renderFolder(model),
    '.svc/history/0002.json': '{"seq":2}\n',
    'notes.md': 'rewritten notes',
  };

  const before = await readFolder(dir);
  const steps: string[] = [];
  const probe = join(base, 'probe');
  await writeFolder(probe, v1);
  await writeFolder(probe, v2, { beforeStep: (s) => void steps.push(s) });
  expect(steps.filter((s) => s.startsWith('swap ')).length).toBeGreaterThan(5);

  // Up to the commit point a failure undoes the swap; after it ("clean") the new folder is in.
  const undoable = steps.slice(0, steps.indexOf('clean'));
  expect(undoable).toEqual(expect.arrayContaining(['journal', 'commit']));
  for (const failAt of undoable) {
    await expect(
      writeFolder(dir, v2, {
        beforeStep: (s) => {
          if (s === failAt) throw new Error(`injected at ${s}`);
        },
      }),
      failAt,
    ).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await readFolder(dir), failAt).toEqual(before);
    expect((await readdir(base)).sort(), failAt).toEqual(['probe', 'server']);
  }

  await writeFolder(dir, v2);
  const after = await readFolder(dir);
  expect(after).toEqual({ ...v2, '.env': 'SVC_UPSTREAM_SECRET=do-not-lose' });
  expect(await readFile(join(dir, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  expect(after['Widgets/order-card.html']).toBeUndefined();
  expect(after['Tools/createOrder.yaml']).toBe(before['Tools/createOrder.yaml']);
});
