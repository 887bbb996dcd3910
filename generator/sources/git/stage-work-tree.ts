/**
 * `git add` / `git rm --cached` of some work tree files in one pass: each file's blob written as a
 * loose object (node's zlib and SHA-1, one file after another, at git's loose-object compression
 * level 1), then the index updated once. isomorphic-git's add hashes and compresses through Web
 * streams with every file in memory at once; this made the Action's merge mode slower and bigger.
 */
import { randomBytes } from 'node:crypto';
import fs, { type Stats } from 'node:fs';
import { link, lstat, mkdir, readFile, readlink, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import git from 'isomorphic-git';
import { GitIndexManager } from 'isomorphic-git/managers';
import { FileSystem } from 'isomorphic-git/models';
import type { LocalRepository } from './local-repository.js';
import type { FileChanges } from './tree-edit.js';
import { blobId } from './work-tree-status.js';

/** Writes `bytes` as a loose blob (kept when already there); its id. */
async function writeLooseBlob(gitdir: string, bytes: Uint8Array): Promise<string> {
  const oid = blobId(bytes);
  const folder = join(gitdir, 'objects', oid.slice(0, 2));
  const path = join(folder, oid.slice(2));
  // An object already stored (the same bytes) is kept: objects never change.
  if (
    await lstat(path).then(
      () => true,
      () => false,
    )
  )
    return oid;
  await mkdir(folder, { recursive: true });
  const header = Buffer.from(`blob ${bytes.byteLength}\0`);
  // Written aside, then linked into place: a reader never sees half an object.
  const temp = join(folder, `tmp_obj_${randomBytes(6).toString('hex')}`);
  await writeFile(temp, deflateSync(Buffer.concat([header, bytes]), { level: 1 }));
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp);
  }
  return oid;
}

/** The mode git records for a work tree entry (isomorphic-git's rule: any execute bit makes 755). */
function gitMode(stats: Stats): string {
  if (stats.isSymbolicLink()) return '120000';
  return stats.mode & 0o111 ? '100755' : '100644';
}

/**
 * Whether this module may stage the repository's files: not when core.autocrlf asks for line
 * endings to be converted (isomorphic-git's add does that).
 */
export async function canStageDirectly(repo: LocalRepository): Promise<boolean> {
  const autocrlf = await git.getConfig({ fs, gitdir: repo.gitdir, path: 'core.autocrlf' });
  return autocrlf === undefined || autocrlf === false || String(autocrlf) === 'false';
}

/**
 * Stages `present` (added or changed, as the work tree holds them) and unstages `gone`, in one
 * write of the index; the changes as a tree edit takes them.
 */
export async function stageFiles(
  repo: LocalRepository & { dir: string },
  present: readonly string[],
  gone: readonly string[],
): Promise<FileChanges> {
  const changes: FileChanges = new Map(gone.map((path) => [path, null]));
  const staged: { filepath: string; stats: Stats; oid: string }[] = [];
  for (const filepath of present) {
    const file = join(repo.dir, filepath);
    const stats = await lstat(file);
    const bytes = stats.isSymbolicLink() ? Buffer.from(await readlink(file), 'utf8') : await readFile(file);
    const oid = await writeLooseBlob(repo.gitdir, bytes);
    staged.push({ filepath, stats, oid });
    changes.set(filepath, { oid, mode: gitMode(stats) });
  }
  await GitIndexManager.acquire({ fs: new FileSystem(fs), gitdir: repo.gitdir, cache: {} }, (index) => {
    for (const entry of staged) index.insert(entry);
    for (const filepath of gone) index.delete({ filepath });
  });
  return changes;
}
