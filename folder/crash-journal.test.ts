import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { journalPathOf, parseLegacyAppChange, type Retirement } from './crash-journal.js';
import { recoverLocked } from './journal-replay.js';
import type { FolderFiles } from './model.js';
import { readFolder } from './read-folder.js';
import { settleFolder } from './settle-folder.js';
import { treeSnapshot } from './testing/tree-snapshot.js';
import { recoverFolder, writeFolder } from './write-folder.js';

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

describe('the crash journal', () => {
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
          version: 2,
          state: 'done',
          swap: {
            newDir: journal.newDir,
            oldDir: journal.oldDir,
            entries: [{ path: journal.path ?? 'Tools', old: true, new: true }],
            dirs: [],
          },
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

/** A journal as svc wrote it before the journals were one (version 1), killed after its first moves. */
async function versionOneJournal(state: 'forward' | 'back'): Promise<void> {
  await writeFolder(dir, v1, quiet);
  const newDir = join(base, '.server.svc-new-Ab12Cd');
  const oldDir = join(base, '.server.svc-old-Ef34Gh');
  await mkdir(join(newDir, 'Tools'), { recursive: true });
  await writeFile(join(newDir, 'Tools', 'a.yaml'), 'name: a2\n');
  await mkdir(oldDir);
  // config.yaml is already swapped: the old one is aside, the new one in place.
  await rm(join(dir, 'config.yaml'));
  await writeFile(join(oldDir, 'config.yaml'), 'schemaVersion: 1\n');
  await writeFile(join(dir, 'config.yaml'), 'schemaVersion: 1\nnew: true\n');
  await writeFile(
    journalPathOf(dir),
    JSON.stringify({
      version: 1,
      state,
      newDir: '.server.svc-new-Ab12Cd',
      oldDir: '.server.svc-old-Ef34Gh',
      entries: [
        { path: 'config.yaml', old: true, new: true },
        { path: 'Tools', old: true, new: true },
      ],
      dirs: [],
    }),
  );
}

describe('a journal left by the previous version of svc', () => {
  test('a version 1 "forward" journal is finished forward by the next open', async () => {
    await versionOneJournal('forward');
    const notices: string[] = [];
    await settleFolder(dir, (m) => notices.push(m));
    expect(notices).toEqual([`${dir}: finished an interrupted swap: the folder now holds the new version`]);
    expect(await readFolder(dir)).toEqual({
      'config.yaml': 'schemaVersion: 1\nnew: true\n',
      'Tools/a.yaml': 'name: a2\n',
    });
    expect(await readdir(base)).toEqual(['server']);
  });

  test('a version 1 "back" journal is undone by the next write, which then writes', async () => {
    await versionOneJournal('back');
    const notices: string[] = [];
    await writeFolder(dir, { ...v1, 'notes.md': 'x' }, { onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([`${dir}: finished undoing a failed swap: the folder holds the old version`]);
    expect(await readFolder(dir)).toEqual({ ...v1, 'notes.md': 'x' });
    expect(await readdir(base)).toEqual(['server']);
  });

  const legacy = {
    branches: ['main', 'live'],
    primary: 'live',
    carried: ['Prompts/b.md', 'Prompts/a.md'],
    modes: { 'z.sh': 0o755, 'a.txt': 0o600 },
  };

  test('a provider-change journal (.svc/app-change.json) is read as it was written', () => {
    expect(parseLegacyAppChange(JSON.stringify(legacy), 'j')).toEqual(legacy);
  });

  test('a provider-change journal naming anything outside the app folder, or not one, is refused', () => {
    for (const bad of [
      'not json',
      JSON.stringify({ ...legacy, branches: ['..'] }),
      JSON.stringify({ ...legacy, branches: ['live/../..'] }),
      JSON.stringify({ ...legacy, primary: '/etc' }),
      JSON.stringify({ ...legacy, modes: { '../outside.sh': 0o777 } }),
      JSON.stringify({ ...legacy, modes: { 'a.sh': 'rwx' } }),
      JSON.stringify({ ...legacy, carried: 'all' }),
      // Only the names branch folders have: not a sibling server's.
      JSON.stringify({ ...legacy, branches: ['billing'] }),
      JSON.stringify({ ...legacy, primary: 'Tools' }),
    ]) {
      let error: unknown;
      try {
        parseLegacyAppChange(bad, '/app/.svc/app-change.json');
      } catch (e) {
        error = e;
      }
      expect(isSvcError(error) && error.code, bad).toBe('FOLDER_INVALID');
    }
  });
});

describe('a transaction of several folders: an app folder, then its branch folders', () => {
  /** An app folder with two branch folders, `live` (the primary, with a file of the user's) and `main`. */
  async function appWithBranches(): Promise<{ retire: Retirement; files: FolderFiles }> {
    await writeFolder(join(dir, 'live'), { ...v1, 'notes.md': 'mine\n' }, quiet);
    await writeFolder(join(dir, 'main'), { ...v1, '.svc/history/1.json': '{}\n' }, quiet);
    const retire: Retirement = {
      branches: [
        { name: 'live', svcFiles: ['config.yaml', 'Tools/a.yaml'] },
        { name: 'main', svcFiles: ['config.yaml', 'Tools/a.yaml', '.svc/history/1.json'] },
      ],
      primary: 'live',
      carried: [],
      modes: {},
    };
    return { retire, files: { 'config.yaml': 'schemaVersion: 1\napp: true\n', 'Tools/b.yaml': 'name: b\n' } };
  }

  test('stopped between the app folder and its branch folders, the next open retires them', async () => {
    const { retire, files } = await appWithBranches();
    await writeFolder(dir, files, { ...quiet, retire });
    // The writer has swapped the app folder in and journaled the rest: as a run killed here leaves it.
    expect(existsSync(join(dir, 'live', 'config.yaml'))).toBe(true);
    expect(JSON.parse(await readFile(journalPathOf(dir), 'utf8'))).toEqual({
      version: 2,
      state: 'done',
      retire,
    });
    const notices: string[] = [];
    await writeFolder(dir, { ...files, 'Tools/c.yaml': 'name: c\n' }, { onNotice: (m) => notices.push(m) });
    expect(notices).toEqual([
      `${dir}: finished an interrupted provider change: the branch folders live/, main/ are retired`,
    ]);
    expect(await treeSnapshot(dir)).toMatchObject({ 'notes.md': expect.any(String) });
    expect((await readdir(dir)).sort()).toEqual(['Tools', 'config.yaml', 'notes.md']);
    expect(await readdir(base)).toEqual(['server']);
  });

  test('stopped between branch folder 1 and branch folder 2, the next recovery retires the rest', async () => {
    const { retire, files } = await appWithBranches();
    await writeFolder(dir, files, { ...quiet, retire });
    // Branch folder 1 is retired (its user's file moved), branch folder 2 not yet.
    await writeFile(join(dir, 'notes.md'), 'mine\n');
    await rm(join(dir, 'live'), { recursive: true });
    const recovery = await recoverFolder(dir, quiet);
    expect(recovery.retired?.left).toEqual([]);
    expect((await readdir(dir)).sort()).toEqual(['Tools', 'config.yaml', 'notes.md']);
    expect(await readdir(base)).toEqual(['server']);
    // Finished: nothing is left to recover.
    expect(await recoverFolder(dir, quiet)).toEqual({ notice: '' });
  });

  test('a swap undone after a failure retires nothing', async () => {
    const { retire, files } = await appWithBranches();
    const before = await treeSnapshot(dir);
    await expect(
      writeFolder(dir, files, {
        ...quiet,
        retire,
        beforeStep: (step) => {
          if (step === 'swap Tools') throw new Error('injected');
        },
      }),
    ).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await recoverFolder(dir, quiet)).toEqual({ notice: '' });
    expect(await treeSnapshot(dir)).toEqual(before);
    expect(await readdir(base)).toEqual(['server']);
  });
});
