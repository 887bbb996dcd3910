import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { journalPathOf, LEGACY_APP_CHANGE, pendingRetirement } from '../../folder/crash-journal.js';
import { treeSnapshot } from '../../folder/testing/tree-snapshot.js';
import { writeFolder } from '../../folder/write-folder.js';
import { finishAppChange, findLegacyAppChange } from './app-change.js';

let base: string;
let app: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-journal-'));
  app = join(base, 'repo', 'app');
  await mkdir(join(app, '.svc'), { recursive: true });
  await writeFile(join(app, 'config.yaml'), 'schemaVersion: 1\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

/** Writes a provider-change journal as the previous version of svc did, into the app folder. */
async function legacyJournal(at: string, journal: object): Promise<void> {
  await mkdir(join(at, '.svc'), { recursive: true });
  await writeFile(join(at, ...LEGACY_APP_CHANGE.split('/')), `${JSON.stringify(journal, null, 2)}\n`);
}

describe('a crafted journal in the repository', () => {
  let victim: string;
  beforeEach(async () => {
    victim = join(base, 'victim');
    await mkdir(join(victim, 'Tools'), { recursive: true });
    await writeFile(join(victim, 'config.yaml'), 'schemaVersion: 1\n');
    await writeFile(join(victim, 'Tools', 'a.yaml'), 'name: a\n');
    await writeFile(join(victim, 'id_ed25519'), 'PRIVATE KEY', { mode: 0o600 });
  });

  it('cannot make svc delete or move files through a branch folder that is a symbolic link', async () => {
    await symlink(victim, join(app, 'main'));
    const before = await treeSnapshot(victim);
    await legacyJournal(app, { branches: ['main'], primary: 'main', carried: [], modes: {} });
    await expect(finishAppChange(app)).rejects.toMatchObject({ code: 'FOLDER_INVALID' });
    expect(await treeSnapshot(victim)).toEqual(before);
    expect((await readdir(app)).sort()).toEqual(['.svc', 'config.yaml', 'main']);
  });

  it('cannot make svc chmod a file outside the app folder through a symbolic link', async () => {
    await symlink(join(victim, 'id_ed25519'), join(app, 'key'));
    await legacyJournal(app, { branches: [], primary: 'live', carried: [], modes: { key: 0o777 } });
    await finishAppChange(app);
    expect((await stat(join(victim, 'id_ed25519'))).mode & 0o777).toBe(0o600);
  });

  it('a journal beside other servers does not speak for a folder it does not name', async () => {
    const parent = join(base, 'repo');
    await legacyJournal(parent, { branches: ['live'], primary: 'live', carried: [], modes: {} });
    await mkdir(join(parent, 'main'));
    await writeFile(join(parent, 'main', 'config.yaml'), 'schemaVersion: 1\n');
    expect(await findLegacyAppChange(join(parent, 'main'))).toBeUndefined();
    expect(await finishAppChange(join(parent, 'main'))).toBeUndefined();
    expect(await readdir(join(parent, 'main'))).toEqual(['config.yaml']);
  });
});

describe('a provider change interrupted by the previous version of svc (.svc/app-change.json)', () => {
  it('is read once into the crash journal and finished: branch folders retired, the record gone', async () => {
    await writeFolder(join(app, 'live'), {
      'config.yaml': 'schemaVersion: 1\n',
      'Tools/a.yaml': 'name: a\n',
      'notes/plan.txt': 'mine\n',
    });
    await writeFolder(join(app, 'main'), {
      'config.yaml': 'schemaVersion: 1\n',
      '.svc/history/1.json': '{}\n',
    });
    await writeFile(join(app, 'run.sh'), '#!/bin/sh\n', { mode: 0o644 });
    await legacyJournal(app, {
      branches: ['live', 'main'],
      primary: 'live',
      carried: [],
      modes: { 'run.sh': 0o755 },
    });

    // Named by one of its branch folders, as a run of `svc source set` may be.
    const finished = await finishAppChange(join(app, 'main'));
    expect(finished?.appDir).toBe(app);
    expect(finished?.left).toEqual([]);
    expect(finished?.notice).toBe(
      'finished an interrupted provider change: the branch folders live/, main/ are retired',
    );
    expect((await readdir(app)).sort()).toEqual(['.svc', 'config.yaml', 'notes', 'run.sh']);
    expect(await readFile(join(app, 'notes', 'plan.txt'), 'utf8')).toBe('mine\n');
    expect((await stat(join(app, 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(existsSync(join(app, ...LEGACY_APP_CHANGE.split('/')))).toBe(false);
    expect(existsSync(journalPathOf(app))).toBe(false);
    expect(await pendingRetirement(app)).toBeUndefined();
    expect(await finishAppChange(app)).toBeUndefined();
  });
});
