/**
 * A repository on this machine (a work tree with its `.git`, or a bare repository), read through
 * git objects with isomorphic-git: no git binary. Revisions are a full or abbreviated commit id, a
 * ref (`HEAD`, a branch, `refs/...`), as `git rev-parse` takes them for the common cases.
 */
import fs from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';
import { SvcError } from '../../../core/svc-error.js';
import type { FolderFiles } from '../../../folder/model.js';
import { commitTree, diffTrees, type ObjectStore, readTreeEntries, treeFiles } from './tree-edit.js';

export interface LocalRepository extends ObjectStore {
  /** The work tree (undefined for a bare repository). */
  dir: string | undefined;
}

/** The git directory a `.git` file points at (a submodule's or a worktree's checkout). */
async function gitdirOf(dotGit: string): Promise<string> {
  if (fs.statSync(dotGit).isDirectory()) return dotGit;
  const line = /^gitdir:\s*(.+)$/m.exec(await readFile(dotGit, 'utf8'));
  if (!line?.[1])
    throw new SvcError('USAGE', `${dotGit} does not name a git directory`, { place: { file: dotGit } });
  return resolve(dirname(dotGit), line[1].trim());
}

/**
 * The repository holding `path` (it or the nearest parent with a `.git`), or `path` itself when
 * it is a bare repository. USAGE when there is none.
 */
export async function openLocalRepository(path: string): Promise<LocalRepository> {
  const start = resolve(path);
  if (fs.existsSync(join(start, 'HEAD')) && fs.existsSync(join(start, 'objects'))) {
    return { dir: undefined, gitdir: start, cache: {} };
  }
  for (let at = start; ; at = dirname(at)) {
    if (fs.existsSync(join(at, '.git')))
      return { dir: at, gitdir: await gitdirOf(join(at, '.git')), cache: {} };
    if (dirname(at) === at) break;
  }
  throw new SvcError('USAGE', `${start} is not in a git repository`, { place: { file: start } });
}

/** The commit id `rev` names (`<rev>~<n>` and `<rev>^` walk first parents); GIT_FAILED when none. */
export async function resolveCommit(repo: ObjectStore, rev: string): Promise<string> {
  const walk = /^(.+?)((?:[~^]\d*)+)$/.exec(rev);
  if (!walk?.[1] || !walk[2]) return resolveName(repo, rev);
  let oid = await resolveName(repo, walk[1]);
  for (const [, op, n] of walk[2].matchAll(/([~^])(\d*)/g)) {
    const steps = op === '~' ? Number(n || 1) : 1;
    const parentIndex = op === '^' ? Number(n || 1) - 1 : 0;
    for (let i = 0; i < steps; i++) {
      const { commit } = await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
      const parent = commit.parent[parentIndex];
      if (!parent)
        throw new SvcError('GIT_FAILED', `${rev} is not a commit of ${repo.gitdir}`, {
          place: { file: repo.gitdir },
        });
      oid = parent;
    }
  }
  return oid;
}

async function resolveName(repo: ObjectStore, rev: string): Promise<string> {
  const { gitdir, cache } = repo;
  try {
    let oid: string;
    if (/^[0-9a-f]{40}$/i.test(rev)) oid = rev.toLowerCase();
    else {
      try {
        oid = await git.resolveRef({ fs, gitdir, ref: rev });
      } catch (error) {
        if (!/^[0-9a-f]{4,39}$/i.test(rev)) throw error;
        oid = await git.expandOid({ fs, gitdir, oid: rev.toLowerCase(), cache });
      }
    }
    // An annotated tag names its commit.
    const { oid: commit } = await git.readCommit({ fs, gitdir, oid, cache });
    return commit;
  } catch (cause) {
    throw new SvcError('GIT_FAILED', `${rev} is not a commit of ${gitdir}`, {
      place: { file: gitdir },
      cause,
    });
  }
}

/** Whether the repository holds the commit `oid` (a shallow clone may not). */
export async function hasCommit(repo: ObjectStore, oid: string): Promise<boolean> {
  try {
    await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache });
    return true;
  } catch {
    return false;
  }
}

export async function commitMessage(repo: ObjectStore, rev: string): Promise<string> {
  const oid = await resolveCommit(repo, rev);
  return (await git.readCommit({ fs, gitdir: repo.gitdir, oid, cache: repo.cache })).commit.message;
}

/** The tree at `dir` ('' for the root) of a commit; undefined when the commit has no such directory. */
export async function treeAt(repo: ObjectStore, rev: string, dir: string): Promise<string | undefined> {
  let oid: string = await commitTree(repo, await resolveCommit(repo, rev));
  for (const name of dir.split('/').filter((p) => p !== '' && p !== '.')) {
    const entries: TreeEntry[] = await readTreeEntries(repo, oid);
    const entry = entries.find((e) => e.path === name);
    if (entry?.type !== 'tree') return undefined;
    oid = entry.oid;
  }
  return oid;
}

/** Every file path in a commit's tree (under `dir` when given), repository-relative, as `ls-tree -r`. */
export async function listFiles(repo: ObjectStore, rev: string, dir = ''): Promise<string[]> {
  const clean = dir.replace(/^\/+|\/+$/g, '');
  const prefix = clean ? `${clean}/` : '';
  return [...(await treeFiles(repo, await treeAt(repo, rev, clean), prefix)).keys()];
}

/** Paths (repository-relative) that differ between two commits; a rename counts as both of its paths. */
export async function changedFiles(repo: ObjectStore, base: string, head: string): Promise<string[]> {
  const [a, b] = await Promise.all([resolveCommit(repo, base), resolveCommit(repo, head)]);
  const [ta, tb] = await Promise.all([commitTree(repo, a), commitTree(repo, b)]);
  return [...(await diffTrees(repo, ta, tb)).keys()];
}

// As the bytes hold it: a byte-order mark stays (as `git cat-file` gives it).
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** One file's text at `rev`; undefined when the commit has no such file. */
export async function readFileAt(repo: ObjectStore, rev: string, path: string): Promise<string | undefined> {
  try {
    const oid = await resolveCommit(repo, rev);
    const { blob } = await git.readBlob({ fs, gitdir: repo.gitdir, oid, filepath: path, cache: repo.cache });
    return decoder.decode(blob);
  } catch {
    return undefined;
  }
}

/**
 * The text of every file under `dir` at `rev` (that `keep` accepts), keyed by path relative to
 * `dir`. Blobs only: a submodule (gitlink) has no text to read; a symbolic link reads as its target.
 */
export async function readFilesAt(
  repo: ObjectStore,
  rev: string,
  dir: string,
  keep: (relativePath: string) => boolean = () => true,
): Promise<FolderFiles> {
  const files: FolderFiles = {};
  const entries = await treeFiles(repo, await treeAt(repo, rev, dir.replace(/\/+$/, '')));
  for (const [path, entry] of entries) {
    if (entry.mode === '160000' || !keep(path)) continue;
    const { blob } = await git.readBlob({ fs, gitdir: repo.gitdir, oid: entry.oid, cache: repo.cache });
    files[path] = decoder.decode(blob);
  }
  return files;
}

const missing = (error: unknown) => {
  const code = (error as { code?: string })?.code;
  return code === 'NotFoundError' || code === 'ObjectTypeError';
};

/** The tree at `dir` ('' for the root) of `commit`, its id and entries; undefined when it has no directory there. */
export async function readTreeAt(
  repo: ObjectStore,
  commit: string,
  dir: string,
): Promise<{ oid: string; entries: TreeEntry[] } | undefined> {
  try {
    const { oid, tree } = await git.readTree({
      fs,
      gitdir: repo.gitdir,
      oid: commit,
      ...(dir ? { filepath: dir } : {}),
      cache: repo.cache,
    });
    return { oid, entries: tree };
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}

/** The bytes of the file at `path` of `commit`; undefined when it has no file there. */
export async function readBlobAt(
  repo: ObjectStore,
  commit: string,
  path: string,
): Promise<Uint8Array | undefined> {
  try {
    return (await git.readBlob({ fs, gitdir: repo.gitdir, oid: commit, filepath: path, cache: repo.cache }))
      .blob;
  } catch (error) {
    if (missing(error)) return undefined;
    throw error;
  }
}
