import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import type { FolderFiles } from './model.js';
import { readFolder } from './read-folder.js';
import { writeFolder } from './write-folder.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-write-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const v1: FolderFiles = {
  'config.yaml': 'schemaVersion: 1\n',
  'README.md': '# v1\n',
  'Tools/a.yaml': 'name: a\n',
  'Tools/b.yaml': 'name: b\n',
  'Docs/guides/webhooks.md': '# Webhooks\n',
  '.svc/history/1.json': '{}\n',
};

async function snapshot(dir: string): Promise<FolderFiles> {
  return readFolder(dir);
}

async function siblings(): Promise<string[]> {
  return (await readdir(base)).sort();
}

describe('writeFolder', () => {
  test('creates a new folder (and its parents) with exactly the given files', async () => {
    const dir = join(base, 'deep', 'server');
    await writeFolder(dir, v1);
    expect(await snapshot(dir)).toEqual(v1);
    expect(await readdir(join(base, 'deep'))).toEqual(['server']);
  });

  test('replaces managed paths, keeps user files, removes managed files no longer given', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    await writeFile(join(dir, '.env'), 'SVC_UPSTREAM_SECRET=x');
    await mkdir(join(dir, '.git'));
    await writeFile(join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const v2: FolderFiles = {
      'config.yaml': 'schemaVersion: 1\n',
      'Tools/a.yaml': 'name: a2\n',
      'Skills/s.md': 's\n',
    };
    await writeFolder(dir, v2);
    const after = await snapshot(dir);
    expect(after).toEqual({ ...v2, 'notes.txt': 'mine', '.env': 'SVC_UPSTREAM_SECRET=x' });
    expect(await readFile(join(dir, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
    expect(await siblings()).toEqual(['server']);
  });

  test('writing the same files twice leaves the same bytes', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const before = await snapshot(dir);
    await writeFolder(dir, v1);
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a file that cannot be created leaves the old folder byte-identical and no temp behind', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const before = await snapshot(dir);
    // "Docs/page" is a file and a directory at once: the temp build fails midway.
    const broken: FolderFiles = { ...v1, 'Docs/page': 'x', 'Docs/page/child.md': 'y', 'Tools/z.yaml': 'z' };
    await expect(writeFolder(dir, broken)).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await snapshot(dir)).toEqual(before);
    expect(await siblings()).toEqual(['server']);
  });

  test('a failure in the middle of the swap puts every old entry back', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const before = await snapshot(dir);
    const v2: FolderFiles = { 'config.yaml': 'new\n', 'README.md': 'new\n', 'Tools/a.yaml': 'new\n' };
    const steps: string[] = [];
    const failing = writeFolder(dir, v2, {
      beforeStep: (step) => {
        steps.push(step);
        if (step === 'swap Tools') throw new Error('injected failure');
      },
    });
    await expect(failing).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    // The swap had already replaced config.yaml and README.md when it failed.
    expect(steps).toEqual(expect.arrayContaining(['swap config.yaml', 'swap README.md', 'set aside Tools']));
    expect(await snapshot(dir)).toEqual(before);
    expect(await siblings()).toEqual(['server']);
  });

  test('a failure while writing the first version writes nothing', async () => {
    const dir = join(base, 'server');
    const failing = writeFolder(dir, v1, {
      beforeStep: (step) => {
        if (step === 'write Tools/b.yaml') throw new Error('disk full');
      },
    });
    await expect(failing).rejects.toMatchObject({ code: 'WRITE_FAILED', place: { file: 'Tools/b.yaml' } });
    expect(await siblings()).toEqual([]);
  });

  test('refuses paths that escape, before touching anything', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const before = await snapshot(dir);
    for (const bad of [
      '../evil.md',
      'Docs/../../evil.md',
      '/etc/passwd',
      'Docs\\evil.md',
      'Docs//x.md',
      'C:/x',
    ]) {
      await expect(writeFolder(dir, { ...v1, [bad]: 'x' })).rejects.toMatchObject({
        code: 'WRITE_FAILED',
        place: { file: bad },
      });
    }
    expect(await snapshot(dir)).toEqual(before);
    expect(await siblings()).toEqual(['server']);
  });

  test('a read-modify-write of the whole folder leaves unmanaged files (and their mode) alone', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    await writeFile(join(dir, '.env'), 'SVC_UPSTREAM_SECRET=x', { mode: 0o600 });
    const all = await readFolder(dir);
    await writeFolder(dir, { ...all, 'README.md': '# v2\n', 'notes/todo.md': 'new user file\n' });
    expect((await stat(join(dir, '.env'))).mode & 0o777).toBe(0o600);
    expect(await readFolder(dir)).toEqual({
      ...all,
      'README.md': '# v2\n',
      'notes/todo.md': 'new user file\n',
    });
  });

  test("a user's executable inside a managed directory keeps its exec bit through a re-import", async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, { ...v1, 'Skills/run.sh': '#!/bin/sh\necho hi\n', 'Tools/a.yaml': 'name: a\n' });
    await chmod(join(dir, 'Skills', 'run.sh'), 0o755);
    await chmod(join(dir, 'Tools', 'a.yaml'), 0o600);
    const all = await readFolder(dir);
    // As an import writes it: the managed directories rebuilt, the user's file carried in as text.
    await writeFolder(dir, { ...all, 'Tools/a.yaml': 'name: a2\n', 'Skills/new.md': 'generated\n' });
    expect((await stat(join(dir, 'Skills', 'run.sh'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(dir, 'Skills', 'run.sh'), 'utf8')).toBe('#!/bin/sh\necho hi\n');
    // A regenerated file keeps the mode its owner gave it too; a new one gets the default.
    expect((await stat(join(dir, 'Tools', 'a.yaml'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dir, 'Skills', 'new.md'))).mode & 0o111).toBe(0);
  });

  test('a re-write links the files whose bytes do not change and writes the others', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const inode = async (p: string) => (await stat(join(dir, ...p.split('/')))).ino;
    const before = { a: await inode('Tools/a.yaml'), b: await inode('Tools/b.yaml') };
    await writeFolder(dir, { ...v1, 'Tools/b.yaml': 'name: b2\n' });
    expect(await inode('Tools/a.yaml')).toBe(before.a);
    expect(await inode('Tools/b.yaml')).not.toBe(before.b);
    expect((await stat(join(dir, 'Tools', 'a.yaml'))).nlink).toBe(1);
    expect(await snapshot(dir)).toEqual({ ...v1, 'Tools/b.yaml': 'name: b2\n' });
    expect(await siblings()).toEqual(['server']);
  });

  test('a non-ASCII file is linked when its text is unchanged, written when only its length changes', async () => {
    const dir = join(base, 'server');
    const files = { ...v1, 'Tools/a.yaml': 'name: café ✓\n', 'Tools/b.yaml': 'name: ’23\n' };
    await writeFolder(dir, files);
    const inode = async (p: string) => (await stat(join(dir, ...p.split('/')))).ino;
    const before = { a: await inode('Tools/a.yaml'), b: await inode('Tools/b.yaml') };
    await writeFolder(dir, { ...files, 'Tools/b.yaml': 'name: ’23 ✓\n' });
    expect(await inode('Tools/a.yaml')).toBe(before.a);
    expect(await inode('Tools/b.yaml')).not.toBe(before.b);
    expect(await snapshot(dir)).toEqual({ ...files, 'Tools/b.yaml': 'name: ’23 ✓\n' });
  });

  test('a failure after unchanged files were linked leaves the old folder whole', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const before = await snapshot(dir);
    const failing = writeFolder(
      dir,
      { ...v1, 'README.md': '# v2\n' },
      {
        beforeStep: (step) => {
          if (step === 'swap Tools') throw new Error('injected');
        },
      },
    );
    await expect(failing).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await snapshot(dir)).toEqual(before);
    expect((await stat(join(dir, 'Tools', 'a.yaml'))).nlink).toBe(1);
    expect(await siblings()).toEqual(['server']);
  });

  test('an unmanaged file that cannot be swapped in rolls back the managed ones too', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    await writeFile(join(dir, 'notes.txt'), 'mine');
    const before = await snapshot(dir);
    const failing = writeFolder(
      dir,
      { ...v1, 'README.md': 'changed\n', 'notes.txt': 'theirs' },
      {
        beforeStep: (step) => {
          if (step === 'swap notes.txt') throw new Error('injected');
        },
      },
    );
    await expect(failing).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect(await snapshot(dir)).toEqual(before);
    expect(await siblings()).toEqual(['server']);
  });

  test('a binary file read as text and written back keeps its bytes', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0x80]);
    await mkdir(join(dir, 'Docs', 'img'), { recursive: true });
    await writeFile(join(dir, 'Docs', 'img', 'logo.png'), png);
    const all = await readFolder(dir);
    await writeFolder(dir, { ...all, 'README.md': '# v2\n' });
    expect(Buffer.compare(await readFile(join(dir, 'Docs', 'img', 'logo.png')), png)).toBe(0);
  });

  test('one writer at a time: a concurrent write is refused and the folder is wholly one version', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const a: FolderFiles = { ...v1, 'README.md': '# A\n', 'Tools/a.yaml': 'name: A\n' };
    const b: FolderFiles = { ...v1, 'README.md': '# B\n', 'Tools/a.yaml': 'name: B\n' };
    const results = await Promise.allSettled([writeFolder(dir, a), writeFolder(dir, b)]);
    const done = results.map((r) => r.status);
    expect(done.sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(rejected?.reason).toMatchObject({
      code: 'WRITE_FAILED',
      message: expect.stringMatching(/another svc process/),
    });
    const after = await snapshot(dir);
    expect([a, b]).toContainEqual(after);
    expect(await siblings()).toEqual(['server']);
  });

  test('a lock left by a process that is gone is taken over', async () => {
    const dir = join(base, 'server');
    await writeFolder(dir, v1);
    const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    await writeFile(join(base, '.server.svc-lock'), `${child.stdout}\n`);
    await writeFolder(dir, { ...v1, 'README.md': '# v2\n' });
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# v2\n');
    expect(await siblings()).toEqual(['server']);
  });

  test('refuses to write over a file', async () => {
    const dir = join(base, 'server');
    await writeFile(dir, 'a file');
    await expect(writeFolder(dir, v1)).rejects.toMatchObject({ code: 'WRITE_FAILED' });
    expect((await stat(dir)).isFile()).toBe(true);
  });

  test('writes through a symlinked folder to where it lives', async () => {
    const real = join(base, 'real');
    await writeFolder(real, v1);
    const link = join(base, 'link');
    await symlink(real, link);
    await writeFolder(link, { ...v1, 'README.md': '# v2\n' });
    expect(await readFile(join(real, 'README.md'), 'utf8')).toBe('# v2\n');
    expect(await siblings()).toEqual(['link', 'real']);
  });
});
