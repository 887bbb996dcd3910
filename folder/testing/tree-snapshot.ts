/**
 * Everything under a directory, for byte-for-byte comparisons in crash tests: every directory
 * (empty ones too) and every file with its mode and bytes, .git included. readFolder is not
 * used on purpose: it finishes interrupted swaps, skips .git and decodes bytes as text.
 */
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** '/' path → "dir", or "<mode> <base64 of the bytes>" for a file. */
export type TreeSnapshot = Record<string, string>;

export async function treeSnapshot(root: string): Promise<TreeSnapshot> {
  const out: TreeSnapshot = {};
  async function walk(dir: string, rel: string): Promise<void> {
    for (const name of (await readdir(dir)).sort()) {
      const full = join(dir, name);
      const path = rel === '' ? name : `${rel}/${name}`;
      const info = await lstat(full);
      if (info.isDirectory()) {
        out[`${path}/`] = 'dir';
        await walk(full, path);
      } else {
        out[path] = `${(info.mode & 0o777).toString(8)} ${(await readFile(full)).toString('base64')}`;
      }
    }
  }
  await walk(root, '');
  return out;
}
