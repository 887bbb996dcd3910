/**
 * Trees as data: the files that differ between two trees, and a tree with some files replaced.
 * Both walk only the subtrees that differ (equal tree ids are skipped), so a change to one folder
 * of a large repository reads and writes that folder's trees, not the repository's.
 */
import fs from 'node:fs';
import git, { type TreeEntry } from 'isomorphic-git';

/** Where the objects are, and one isomorphic-git cache for a run of calls (packs read once). */
export interface ObjectStore {
  gitdir: string;
  cache: object;
}

/** A file of a tree: its blob (or gitlink commit) id and mode ('100644', '100755', '120000', '160000'). */
export interface FileEntry {
  oid: string;
  mode: string;
}

/** path → the new file, or null to delete it. */
export type FileChanges = Map<string, FileEntry | null>;

/** One entry of a tree, as isomorphic-git reads it. */
export type GitTreeEntry = TreeEntry;

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

export async function readTreeEntries(store: ObjectStore, oid: string): Promise<TreeEntry[]> {
  if (oid === EMPTY_TREE) return [];
  return (await git.readTree({ fs, gitdir: store.gitdir, oid, cache: store.cache })).tree;
}

/** The root tree of a commit. */
export async function commitTree(store: ObjectStore, commit: string): Promise<string> {
  return (await git.readCommit({ fs, gitdir: store.gitdir, oid: commit, cache: store.cache })).commit.tree;
}

/** Every file under the tree `oid` (submodules included), keyed by path under `prefix`. */
export async function treeFiles(
  store: ObjectStore,
  oid: string | undefined,
  prefix = '',
  into = new Map<string, FileEntry>(),
): Promise<Map<string, FileEntry>> {
  if (!oid) return into;
  for (const e of await readTreeEntries(store, oid)) {
    const path = `${prefix}${e.path}`;
    if (e.type === 'tree') await treeFiles(store, e.oid, `${path}/`, into);
    else into.set(path, { oid: e.oid, mode: e.mode });
  }
  return into;
}

/**
 * The files that differ between the trees `a` and `b` (added, removed or changed in content or
 * mode), with what `b` holds (null: not in `b`). A path that is a file on one side and a
 * directory on the other counts as both.
 */
export async function diffTrees(
  store: ObjectStore,
  a: string | undefined,
  b: string | undefined,
  prefix = '',
  into: FileChanges = new Map(),
): Promise<FileChanges> {
  if (a === b) return into;
  const before = new Map((a ? await readTreeEntries(store, a) : []).map((e) => [e.path, e]));
  const after = new Map((b ? await readTreeEntries(store, b) : []).map((e) => [e.path, e]));
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const x = before.get(name);
    const y = after.get(name);
    const path = `${prefix}${name}`;
    if (x && y && x.oid === y.oid && x.mode === y.mode) continue;
    const xTree = x?.type === 'tree' ? x.oid : undefined;
    const yTree = y?.type === 'tree' ? y.oid : undefined;
    if (xTree || yTree) await diffTrees(store, xTree, yTree, `${path}/`, into);
    if (y && y.type !== 'tree') into.set(path, { oid: y.oid, mode: y.mode });
    else if (x && x.type !== 'tree') into.set(path, null);
  }
  return into;
}

const typeOf = (mode: string): TreeEntry['type'] =>
  mode === '040000' ? 'tree' : mode === '160000' ? 'commit' : 'blob';

/**
 * `root` with `changes` applied (files written or removed; directories left empty disappear, as
 * git keeps none); the new root tree's id. Untouched subtrees keep their ids.
 */
export async function applyChanges(
  store: ObjectStore,
  root: string | undefined,
  changes: FileChanges,
): Promise<string> {
  const byChild = new Map<string, FileChanges>();
  const here = new Map<string, FileEntry | null>();
  for (const [path, entry] of changes) {
    const slash = path.indexOf('/');
    if (slash < 0) here.set(path, entry);
    else {
      const name = path.slice(0, slash);
      const sub = byChild.get(name) ?? new Map();
      sub.set(path.slice(slash + 1), entry);
      byChild.set(name, sub);
    }
  }
  const entries = new Map((root ? await readTreeEntries(store, root) : []).map((e) => [e.path, e]));
  let changed = false;
  for (const [name, sub] of byChild) {
    const existing = entries.get(name);
    const oid = await applyChanges(store, existing?.type === 'tree' ? existing.oid : undefined, sub);
    if (oid === EMPTY_TREE) {
      if (existing?.type === 'tree') {
        entries.delete(name);
        changed = true;
      }
    } else if (existing?.oid !== oid) {
      entries.set(name, { mode: '040000', path: name, oid, type: 'tree' });
      changed = true;
    }
  }
  for (const [name, entry] of here) {
    const existing = entries.get(name);
    if (entry === null) {
      if (existing && existing.type !== 'tree') {
        entries.delete(name);
        changed = true;
      }
    } else if (existing?.oid !== entry.oid || existing.mode !== entry.mode) {
      entries.set(name, { ...entry, path: name, type: typeOf(entry.mode) });
      changed = true;
    }
  }
  if (!changed) return root ?? EMPTY_TREE;
  if (entries.size === 0) return EMPTY_TREE;
  return git.writeTree({ fs, gitdir: store.gitdir, tree: [...entries.values()] });
}

/** The bytes of the blob `oid`. */
export async function readBlob(store: ObjectStore, oid: string): Promise<Uint8Array> {
  return (await git.readBlob({ fs, gitdir: store.gitdir, oid, cache: store.cache })).blob;
}

/** Writes `bytes` as a blob; its id. */
export function writeBlob(store: ObjectStore, bytes: Uint8Array): Promise<string> {
  return git.writeBlob({ fs, gitdir: store.gitdir, blob: bytes });
}

/** The commit at the tip of the local branch `branch` (isomorphic-git's NotFoundError when there is none). */
export function branchTip(store: ObjectStore, branch: string): Promise<string> {
  return git.resolveRef({ fs, gitdir: store.gitdir, ref: `refs/heads/${branch}` });
}

/** Points the local branch `branch` at `commit`. */
export function setBranch(store: ObjectStore, branch: string, commit: string): Promise<void> {
  return git.writeRef({ fs, gitdir: store.gitdir, ref: `refs/heads/${branch}`, value: commit, force: true });
}

/** The message of the commit `oid` (isomorphic-git's own error when the object store lacks it). */
export async function readCommitMessage(store: ObjectStore, oid: string): Promise<string> {
  return (await git.readCommit({ fs, gitdir: store.gitdir, oid, cache: store.cache })).commit.message;
}
