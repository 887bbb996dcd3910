import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { APP_CHANGE_JOURNAL, findAppChange, renderJournal } from '../../folder/app-change-journal.js';
import { treeSnapshot } from '../../folder/testing/tree-snapshot.js';
import { completeAppChange } from './app-change.js';

describe('a crafted journal in the repository', () => {
  let base: string;
  let app: string;
  let victim: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'svc-journal-'));
    app = join(base, 'repo', 'app');
    victim = join(base, 'victim');
    await mkdir(join(app, '.svc'), { recursive: true });
    await writeFile(join(app, 'config.yaml'), 'schemaVersion: 1\n');
    await mkdir(join(victim, 'Tools'), { recursive: true });
    await writeFile(join(victim, 'config.yaml'), 'schemaVersion: 1\n');
    await writeFile(join(victim, 'Tools', 'a.yaml'), 'name: a\n');
    await writeFile(join(victim, 'id_ed25519'), 'PRIVATE KEY', { mode: 0o600 });
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('cannot make svc delete or move files through a branch folder that is a symbolic link', async () => {
    await symlink(victim, join(app, 'main'));
    const before = await treeSnapshot(victim);
    const crafted = { branches: ['main'], primary: 'main', carried: [], modes: {} };
    await expect(completeAppChange(app, crafted)).rejects.toMatchObject({ code: 'FOLDER_INVALID' });
    expect(await treeSnapshot(victim)).toEqual(before);
    expect((await readdir(app)).sort()).toEqual(['.svc', 'config.yaml', 'main']);
  });

  it('cannot make svc chmod a file outside the app folder through a symbolic link', async () => {
    await symlink(join(victim, 'id_ed25519'), join(app, 'key'));
    await completeAppChange(app, { branches: [], primary: 'live', carried: [], modes: { key: 0o777 } });
    expect((await stat(join(victim, 'id_ed25519'))).mode & 0o777).toBe(0o600);
  });

  it('a journal beside other servers does not speak for a folder it does not name', async () => {
    const parent = join(base, 'repo');
    await mkdir(join(parent, '.svc'), { recursive: true });
    await writeFile(
      join(parent, ...APP_CHANGE_JOURNAL.split('/')),
      renderJournal({ branches: ['live'], primary: 'live', carried: [], modes: {} }),
    );
    await mkdir(join(parent, 'main'));
    await writeFile(join(parent, 'main', 'config.yaml'), 'schemaVersion: 1\n');
    expect(await findAppChange(join(parent, 'main'))).toBeUndefined();
    expect(await readdir(join(parent, 'main'))).toEqual(['config.yaml']);
  });
});
