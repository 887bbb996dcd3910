import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { FolderFiles } from './model.js';
import { readFolder } from './read-folder.js';
import { journalPathOf, recoverLocked } from './swap-journal.js';
import { writeFolder } from './write-folder.js';

let base: string;
let dir: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-journal-'));
  dir = join(base, 'server');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const v1: FolderFiles = { 'config.yaml': 'schemaVersion: 1\n', 'Tools/a.yaml': 'name: a\n' };
const quiet = { onNotice: () => undefined };

describe('the swap journal', () => {
  test('a journal naming anything but its own temporary directories is refused, and nothing is touched', async () => {
    await writeFolder(dir, v1, quiet);
    const victim = join(base, 'precious');
    await mkdir(victim);
    await writeFile(join(victim, 'keep.txt'), 'keep');
    for (const journal of [
      { newDir: '../precious', oldDir: '.server.svc-old-abcdef' },
      { newDir: '.server.svc-new-abcdef', oldDir: 'precious' },
      { newDir: '.server.svc-new-abcdef', oldDir: '.server.svc-old-abcdef', path: '../precious' },
    ]) {
      await writeFile(
        journalPathOf(dir),
        JSON.stringify({
          version: 1,
          state: 'done',
          newDir: journal.newDir,
          oldDir: journal.oldDir,
          entries: [{ path: journal.path ?? 'Tools', old: true, new: true }],
          dirs: [],
        }),
      );
      await expect(recoverLocked(dir)).rejects.toMatchObject({
        code: 'FOLDER_INVALID',
        message: expect.stringContaining('is damaged'),
      });
      await expect(readFolder(dir)).rejects.toMatchObject({ code: 'FOLDER_INVALID' });
    }
    expect(await readFile(join(victim, 'keep.txt'), 'utf8')).toBe('keep');
    expect(await readFile(join(dir, 'Tools', 'a.yaml'), 'utf8')).toBe('name: a\n');
  });

  test('a failure while removing the temporary directories keeps the new folder; the next open removes them', async () => {
    await writeFolder(dir, v1, quiet);
    const v2 = { ...v1, 'Tools/a.yaml': 'name: a2\n' };
    await writeFolder(dir, v2, {
      ...quiet,
      beforeStep: (step) => {
        if (step === 'clean') throw new Error('injected');
      },
    });
    expect((await readdir(base)).filter((n) => n !== 'server').length).toBeGreaterThan(0);
    expect(await readFolder(dir)).toEqual(v2);
    expect(await readdir(base)).toEqual(['server']);
  });

  test('a non-empty .svc-old-* without a journal (left by an older svc) is kept for a person', async () => {
    await writeFolder(dir, v1, quiet);
    const legacy = join(base, '.server.svc-old-Ab12Cd');
    await mkdir(join(legacy, 'Tools'), { recursive: true });
    await writeFile(join(legacy, 'Tools', 'customized.yaml'), 'only copy\n');
    const unfinished = join(base, '.server.svc-new-Zz99Yy');
    await mkdir(unfinished);
    await writeFile(join(unfinished, 'config.yaml'), 'half written');
    const empty = join(base, '.server.svc-old-Qq11Ww');
    await mkdir(empty);
    expect(await readFolder(dir)).toEqual(v1);
    expect((await readdir(base)).sort()).toEqual(['.server.svc-old-Ab12Cd', 'server']);
    expect(await readFile(join(legacy, 'Tools', 'customized.yaml'), 'utf8')).toBe('only copy\n');
  });
});
