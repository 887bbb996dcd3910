import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { readFolder } from './read-folder.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-read-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function put(rel: string, text: string): Promise<void> {
  const full = join(base, 'f', ...rel.split('/'));
  await mkdir(join(full, '..'), { recursive: true });
  await writeFile(full, text);
}

describe('readFolder', () => {
  test('reads every file with / paths, .svc included, .git and node_modules skipped, sorted', async () => {
    await put('config.yaml', 'a');
    await put('Tools/x.yaml', 'b');
    await put('Docs/g/h.md', 'c');
    await put('.svc/history/1.json', 'd');
    await put('.git/HEAD', 'no');
    await put('node_modules/p/index.js', 'no');
    await put('Docs/node_modules/x.md', 'no');
    const files = await readFolder(join(base, 'f'));
    expect(files).toEqual({
      '.svc/history/1.json': 'd',
      'Docs/g/h.md': 'c',
      'Tools/x.yaml': 'b',
      'config.yaml': 'a',
    });
    expect(Object.keys(files)).toEqual(Object.keys(files).sort());
  });

  test('skip leaves paths out without reading them', async () => {
    await put('config.yaml', 'a');
    await put('Tools/openapi.json', 'big');
    await put('Tools/x.yaml', 'b');
    await put('.svc/raw/1.json', 'big');
    const seen: string[] = [];
    const files = await readFolder(join(base, 'f'), {
      skip: (path, isDirectory) => {
        seen.push(`${path}${isDirectory ? '/' : ''}`);
        return path === '.svc' || path === 'Tools/openapi.json';
      },
    });
    expect(files).toEqual({ 'Tools/x.yaml': 'b', 'config.yaml': 'a' });
    expect(seen).not.toContain('.svc/raw/');
  });

  test('a missing folder is FOLDER_NOT_FOUND', async () => {
    await expect(readFolder(join(base, 'nope'))).rejects.toMatchObject({ code: 'FOLDER_NOT_FOUND' });
    await put('file', 'x');
    await expect(readFolder(join(base, 'f', 'file'))).rejects.toMatchObject({ code: 'FOLDER_NOT_FOUND' });
  });

  test('follows a symlink inside the folder, refuses one pointing outside', async () => {
    await put('Docs/real.md', 'inside');
    await symlink('real.md', join(base, 'f', 'Docs', 'alias.md'));
    expect(await readFolder(join(base, 'f'))).toEqual({
      'Docs/alias.md': 'inside',
      'Docs/real.md': 'inside',
    });
    await writeFile(join(base, 'outside.txt'), 'secret');
    await symlink('../../outside.txt', join(base, 'f', 'Docs', 'escape.md'));
    await expect(readFolder(join(base, 'f'))).rejects.toMatchObject({
      code: 'FOLDER_INVALID',
      place: { file: 'Docs/escape.md' },
    });
  });

  test('a directory symlink loop is read once', async () => {
    await put('Docs/a.md', 'a');
    await symlink('..', join(base, 'f', 'Docs', 'up'));
    expect(Object.keys(await readFolder(join(base, 'f')))).toEqual(['Docs/a.md']);
  });

  test('refuses files over the size cap and folders over the file cap', async () => {
    await put('Docs/big.md', 'x'.repeat(100));
    await put('Docs/small.md', 'x');
    await expect(readFolder(join(base, 'f'), { maxFileBytes: 50 })).rejects.toMatchObject({
      code: 'FOLDER_INVALID',
      place: { file: 'Docs/big.md' },
    });
    await expect(readFolder(join(base, 'f'), { maxFiles: 1 })).rejects.toMatchObject({
      code: 'FOLDER_INVALID',
    });
  });

  test('blocking reads give the same files and the same refusals', async () => {
    await put('config.yaml', 'a');
    await put('Tools/x.yaml', 'b');
    await put('Docs/real.md', 'inside');
    await put('.svc/h.json', 'd');
    await symlink('real.md', join(base, 'f', 'Docs', 'alias.md'));
    const dir = join(base, 'f');
    const skip = (path: string) => path === '.svc';
    expect(await readFolder(dir, { blocking: true })).toEqual(await readFolder(dir));
    expect(await readFolder(dir, { blocking: true, skip })).toEqual(await readFolder(dir, { skip }));
    await symlink('nowhere.md', join(base, 'f', 'Docs', 'dangling.md'));
    for (const blocking of [true, false])
      await expect(readFolder(dir, { blocking })).rejects.toMatchObject({
        code: 'FOLDER_INVALID',
        place: { file: 'Docs/dangling.md' },
      });
  });
});
