/**
 * Which files under some paths of a work tree differ from a commit, as `git status` would list
 * them for `git add -A -- <paths>`: present (added or changed in content) and gone (in the commit,
 * not in the work tree). What .gitignore ignores counts only when the commit does not hold it.
 *
 * Files are read one after another and hashed with node's SHA-1, not isomorphic-git's
 * statusMatrix: that reads every file under the paths at once (the whole folder in memory, a
 * Web Crypto digest per file), which made the Action's merge mode slower and bigger than git.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import git from 'isomorphic-git';
import type { LocalRepository } from './local-repository.js';
import { commitTree, type FileEntry, readTreeEntries, treeFiles } from './tree-edit.js';

/** The id git gives a blob of `bytes`. */
export function blobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}

/** The files of `commit` under `path` ('' for all), keyed by repository-relative path. */
async function committedFiles(
  repo: LocalRepository,
  commit: string,
  path: string,
): Promise<Map<string, FileEntry>> {
  let oid = await commitTree(repo, commit);
  const parts = path === '' ? [] : path.split('/');
  for (const [i, name] of parts.entries()) {
    const entry = (await readTreeEntries(repo, oid)).find((e) => e.path === name);
    if (!entry) return new Map();
    if (entry.type !== 'tree') {
      // A file (or submodule) named by the path itself.
      return i === parts.length - 1 ? new Map([[path, { oid: entry.oid, mode: entry.mode }]]) : new Map();
    }
    oid = entry.oid;
  }
  return treeFiles(repo, oid, path === '' ? '' : `${path}/`);
}

/** The content git hashes for the work tree's `path`: a link's target, a file's bytes; undefined when absent. */
async function workTreeBytes(file: string): Promise<Uint8Array | undefined> {
  try {
    const stats = await lstat(file);
    if (stats.isSymbolicLink()) return Buffer.from(await readlink(file), 'utf8');
    return stats.isFile() ? await readFile(file) : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Every file (and link) under `path` of the work tree, repository-relative; `.git` left out, and
 * the directories `skip` names (ignored ones the commit holds nothing of) not entered.
 */
async function workTreeFiles(
  dir: string,
  path: string,
  skip: (directory: string) => Promise<boolean>,
  into: string[] = [],
): Promise<string[]> {
  let entries: fs.Dirent[];
  try {
    entries = await readdir(join(dir, path), { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return into;
    if (code === 'ENOTDIR') {
      into.push(path);
      return into;
    }
    throw error;
  }
  // A nested repository (a submodule's checkout) is not this one's to list.
  if (path !== '' && entries.some((e) => e.name === '.git')) return into;
  for (const entry of entries) {
    if (entry.name === '.git') continue;
    const child = path === '' ? entry.name : `${path}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!(await skip(child))) await workTreeFiles(dir, child, skip, into);
    } else into.push(child);
  }
  return into;
}

export interface WorkTreeChanges {
  /** Added or changed in content. */
  present: string[];
  /** In the commit, not in the work tree. */
  gone: string[];
}

/** The files under `paths` ('' for the whole tree) that differ between `commit` and the work tree. */
export async function workTreeChanges(
  repo: LocalRepository & { dir: string },
  commit: string,
  paths: readonly string[],
): Promise<WorkTreeChanges> {
  const present = new Set<string>();
  const gone = new Set<string>();
  for (const path of paths) {
    const committed = await committedFiles(repo, commit, path);
    const committedDirs = new Set<string>();
    for (const file of committed.keys())
      for (let at = file.lastIndexOf('/'); at > 0; at = file.lastIndexOf('/', at - 1))
        committedDirs.add(file.slice(0, at));
    const ignored = (filepath: string) => git.isIgnored({ fs, dir: repo.dir, gitdir: repo.gitdir, filepath });
    const skip = async (directory: string) => !committedDirs.has(directory) && (await ignored(directory));
    const onDisk = await workTreeFiles(repo.dir, path, skip);
    const seen = new Set(onDisk);
    for (const file of committed.keys()) if (!seen.has(file)) gone.add(file);
    for (const file of onDisk) {
      const before = committed.get(file);
      if (!before) {
        if (!(await ignored(file))) present.add(file);
        continue;
      }
      if (before.mode === '160000') continue;
      const bytes = await workTreeBytes(join(repo.dir, file));
      if (bytes === undefined) gone.add(file);
      else if (blobId(bytes) !== before.oid) present.add(file);
    }
  }
  return { present: [...present], gone: [...gone] };
}
