import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { treeSnapshot } from '../folder/testing/tree-snapshot.js';
import {
  APP_CHANGE_JOURNAL,
  completeAppChange,
  finishInterruptedAppChange,
  parseJournal,
  renderJournal,
} from './app-change-journal.js';

const journal = {
  branches: ['main', 'live'],
  primary: 'live',
  carried: ['Prompts/b.md', 'Prompts/a.md'],
  modes: { 'z.sh': 0o755, 'a.txt': 0o600 },
};

function refusal(text: string): unknown {
  try {
    parseJournal(text, '/app/.svc/app-change.json');
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('the app-change journal', () => {
  it('renders the same bytes for the same change, and reads back what it wrote', () => {
    const text = renderJournal(journal);
    expect(
      renderJournal({ ...journal, branches: ['live', 'main'], carried: ['Prompts/a.md', 'Prompts/b.md'] }),
    ).toBe(text);
    expect(parseJournal(text, 'j')).toEqual({
      branches: ['live', 'main'],
      primary: 'live',
      carried: ['Prompts/a.md', 'Prompts/b.md'],
      modes: { 'a.txt': 0o600, 'z.sh': 0o755 },
    });
  });

  it('refuses a journal that names anything outside the app folder, or is not one', () => {
    for (const bad of [
      'not json',
      JSON.stringify({ ...journal, branches: ['..'] }),
      JSON.stringify({ ...journal, branches: ['live/../..'] }),
      JSON.stringify({ ...journal, primary: '/etc' }),
      JSON.stringify({ ...journal, modes: { '../outside.sh': 0o777 } }),
      JSON.stringify({ ...journal, modes: { 'a.sh': 'rwx' } }),
      JSON.stringify({ ...journal, carried: 'all' }),
      // Only the names branch folders have: not a sibling server's.
      JSON.stringify({ ...journal, branches: ['billing'] }),
      JSON.stringify({ ...journal, primary: 'Tools' }),
    ]) {
      const error = refusal(bad);
      expect(isSvcError(error) && error.code, bad).toBe('FOLDER_INVALID');
    }
  });
});

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
  const io = () => ({ stdout: () => undefined, stderr: () => undefined, cwd: base, env: {} });

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
    expect(await finishInterruptedAppChange(io(), join(parent, 'main'))).toBe(false);
    expect(await readdir(join(parent, 'main'))).toEqual(['config.yaml']);
  });
});
