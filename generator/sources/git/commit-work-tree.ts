/**
 * Commits what the work tree holds under some paths, as `git add -A -- <paths>` then
 * `git commit -- <paths>` would: additions, edits and deletions under those paths only (what
 * .gitignore ignores stays out), on top of HEAD, with the index brought up to date so the work
 * tree reads clean afterwards. Nothing else staged or changed is committed.
 */
import fs from 'node:fs';
import git from 'isomorphic-git';
import type { LocalRepository } from './local-repository.js';
import { applyChanges, commitTree, type FileChanges, type FileEntry, type ObjectStore } from './tree-edit.js';
import { canStageDirectly, stageFiles } from './stage-work-tree.js';
import { workTreeChanges } from './work-tree-status.js';

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

/** The ids and modes the index holds for `paths` (after they were staged). */
async function stagedEntries(
  repo: LocalRepository & { dir: string },
  paths: ReadonlySet<string>,
): Promise<Map<string, FileEntry>> {
  const staged = new Map<string, FileEntry>();
  await git.walk({
    fs,
    dir: repo.dir,
    gitdir: repo.gitdir,
    cache: repo.cache,
    trees: [git.STAGE()],
    map: async (path, [entry]) => {
      if (!entry) return undefined;
      if ((await entry.type()) === 'tree') return true;
      if (paths.has(path)) {
        const oid = await entry.oid();
        const mode = ((await entry.mode()) as number).toString(8).padStart(6, '0');
        if (oid) staged.set(path, { oid, mode });
      }
      return undefined;
    },
  });
  return staged;
}

/**
 * Stages through isomorphic-git's add (which converts line endings as core.autocrlf asks): one
 * write of the index for every file added or changed (per-file calls rewrite the whole index).
 */
async function stageWithAdd(
  repo: LocalRepository & { dir: string },
  present: readonly string[],
  gone: readonly string[],
): Promise<FileChanges> {
  const { dir, gitdir, cache } = repo;
  if (present.length > 0) await git.add({ fs, dir, gitdir, filepath: [...present], cache, parallel: false });
  for (const path of gone) await git.remove({ fs, dir, gitdir, filepath: path, cache });
  const changes: FileChanges = new Map(gone.map((path) => [path, null]));
  for (const [path, entry] of await stagedEntries(repo, new Set(present))) changes.set(path, entry);
  return changes;
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
  const head = await git.resolveRef({ fs, gitdir: repo.gitdir, ref: 'HEAD' });
  const filepaths = paths.map((p) => p.replace(/^\.\/?|\/+$/g, '')).filter((p) => p !== '');
  const whole = filepaths.length === 0 || paths.includes('.');
  const { present, gone } = await workTreeChanges(repo, head, whole ? [''] : filepaths);
  if (present.length === 0 && gone.length === 0) return undefined;
  // Staged first, so the work tree reads clean after the commit; the ids come from there.
  const changes = (await canStageDirectly(repo))
    ? await stageFiles(repo, present, gone)
    : await stageWithAdd(repo, present, gone);
  const base = await commitTree(repo, head);
  const tree = await applyChanges(repo, base, changes);
  if (tree === base) return undefined;
  const commit = await writeCommit(repo, tree, [head], { ...input, message: cleanMessage(input.message) });
  await moveHead(repo, commit);
  return commit;
}
