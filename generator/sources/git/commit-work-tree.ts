/**
 * Commits what the work tree holds under some paths, as `git add -A -- <paths>` then
 * `git commit -- <paths>` would: additions, edits and deletions under those paths only (what
 * .gitignore ignores stays out), on top of HEAD, with the index brought up to date so the work
 * tree reads clean afterwards. Nothing else staged or changed is committed.
 */
import fs from 'node:fs';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import git from 'isomorphic-git';
import type { LocalRepository } from './local-repository.js';
import { applyChanges, commitTree, type FileChanges, type ObjectStore } from './tree-edit.js';

export interface GitIdentity {
  name: string;
  email: string;
}

export interface CommitInput {
  message: string;
  author: GitIdentity;
  /** Default: the author. */
  committer?: GitIdentity;
  /** Default: the clock's now. */
  now?: Date;
}

/**
 * A commit message as git stores one given with `-F` (cleanup "whitespace"): trailing spaces and
 * leading and trailing blank lines gone, runs of blank lines made one, one final newline.
 */
export function cleanMessage(message: string): string {
  const lines = message.split('\n').map((l) => l.replace(/\s+$/, ''));
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** Writes a commit of `tree` on `parents` with the message as given; returns its id. */
export async function writeCommit(
  store: ObjectStore,
  tree: string,
  parents: readonly string[],
  input: CommitInput,
): Promise<string> {
  const when = input.now ?? new Date();
  const stamp = { timestamp: Math.floor(when.getTime() / 1000), timezoneOffset: 0 };
  return git.writeCommit({
    fs,
    gitdir: store.gitdir,
    commit: {
      message: input.message,
      tree,
      parent: [...parents],
      author: { ...input.author, ...stamp },
      committer: { ...(input.committer ?? input.author), ...stamp },
    },
  });
}

/** Points HEAD's branch (or a detached HEAD) at `commit`. */
export async function moveHead(repo: ObjectStore, commit: string): Promise<void> {
  const branch = await git.currentBranch({ fs, gitdir: repo.gitdir, fullname: true, test: true });
  await git.writeRef({ fs, gitdir: repo.gitdir, ref: branch ?? 'HEAD', value: commit, force: true });
}

/** The blob id and mode of a work tree file (written to the object store). */
async function workFile(repo: ObjectStore, full: string): Promise<{ oid: string; mode: string }> {
  const info = await lstat(full);
  if (info.isSymbolicLink()) {
    const oid = await git.writeBlob({ fs, gitdir: repo.gitdir, blob: Buffer.from(await readlink(full)) });
    return { oid, mode: '120000' };
  }
  const oid = await git.writeBlob({ fs, gitdir: repo.gitdir, blob: await readFile(full) });
  return { oid, mode: (info.mode & 0o111) !== 0 ? '100755' : '100644' };
}

/**
 * Commits the work tree's state of `paths` on top of HEAD and moves HEAD's branch to it. Returns
 * the new commit's id, or undefined when nothing under `paths` differs from HEAD.
 */
export async function commitPaths(
  repo: LocalRepository & { dir: string },
  paths: readonly string[],
  input: CommitInput,
): Promise<string | undefined> {
  const { dir, gitdir, cache } = repo;
  const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  const filepaths = paths.map((p) => p.replace(/^\.\/?|\/+$/g, '')).filter((p) => p !== '');
  // [path, HEAD, WORKDIR, STAGE]: WORKDIR 0 absent, 1 as at HEAD, 2 changed.
  const matrix = await git.statusMatrix({
    fs,
    dir,
    gitdir,
    ref: head,
    cache,
    ...(filepaths.length > 0 && !paths.includes('.') ? { filepaths } : {}),
  });
  const changes: FileChanges = new Map();
  for (const [path, inHead, work] of matrix) {
    if (work === 0 && inHead === 1) changes.set(path, null);
    else if (work === 2) changes.set(path, await workFile(repo, join(dir, ...path.split('/'))));
  }
  if (changes.size === 0) return undefined;
  const base = await commitTree(repo, head);
  const tree = await applyChanges(repo, base, changes);
  if (tree === base) return undefined;
  const commit = await writeCommit(repo, tree, [head], { ...input, message: cleanMessage(input.message) });
  await moveHead(repo, commit);
  // The index now matches the new HEAD for those files, so the work tree reads clean: one write of
  // the index for every file added or changed (per-file calls rewrite the whole index each time).
  const present = [...changes].filter(([, entry]) => entry !== null).map(([path]) => path);
  if (present.length > 0) await git.add({ fs, dir, gitdir, filepath: present, cache });
  for (const [path, entry] of changes) {
    if (entry === null) await git.remove({ fs, dir, gitdir, filepath: path, cache });
  }
  return commit;
}
