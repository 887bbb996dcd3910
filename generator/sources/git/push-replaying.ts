/**
 * Push a work tree's new commit, and when the branch moved meanwhile, re-apply it on the new tip:
 * a rebase at the level of paths. isomorphic-git has no rebase; a re-import commit touches only
 * its folders, so when the files it changed were not changed on the branch since its parent, the
 * new commit is the new tip's tree with those files replaced, with the same message and author.
 * When they were, nothing is forced: the caller's next run re-imports on top of what landed.
 */
import fs from 'node:fs';
import git from 'isomorphic-git';
import { SvcError } from '../../../core/svc-error.js';
import { moveHead, writeCommit } from './commit-work-tree.js';
import type { LocalRepository } from './local-repository.js';
import { BranchMovedError, fetchBranch, pushBranch, type RemoteAccess } from './remote.js';
import { applyChanges, commitTree, diffTrees, type FileChanges, type ObjectStore } from './tree-edit.js';

/** Whether two sets of changed files touch a common path (the same file, or a file and a directory). */
function overlap(mine: FileChanges, theirs: FileChanges): string | undefined {
  for (const path of mine.keys()) {
    if (theirs.has(path)) return path;
    for (const other of theirs.keys()) {
      if (other.startsWith(`${path}/`) || path.startsWith(`${other}/`)) return path;
    }
  }
  return undefined;
}

/**
 * `commit` (one parent) re-applied on `tip`: undefined when the files it changed were changed
 * between its parent and `tip` too. Also returns the files the tip changed (to refresh a work tree).
 */
export async function replayCommit(
  store: ObjectStore,
  commit: string,
  tip: string,
): Promise<{ sha: string; theirs: FileChanges } | undefined> {
  const { commit: ours } = await git.readCommit({
    fs,
    gitdir: store.gitdir,
    oid: commit,
    cache: store.cache,
  });
  const parent = ours.parent[0];
  if (!parent || ours.parent.length !== 1) return undefined;
  const base = await commitTree(store, parent);
  const [mine, theirs] = await Promise.all([
    diffTrees(store, base, ours.tree),
    diffTrees(store, base, await commitTree(store, tip)),
  ]);
  if (overlap(mine, theirs) !== undefined) return undefined;
  const tree = await applyChanges(store, await commitTree(store, tip), mine);
  const sha = await writeCommit(store, tree, [tip], {
    message: ours.message,
    author: { name: ours.author.name, email: ours.author.email },
    committer: { name: ours.committer.name, email: ours.committer.email },
  });
  return { sha, theirs };
}

export interface PushReplayingInput {
  /** The local branch's remote ('origin'). */
  remote: string;
  /** The remote branch pushed to. */
  branch: string;
  access: RemoteAccess;
}

/**
 * Pushes HEAD to `branch`; when the branch moved meanwhile (another merge landed during the run),
 * replays HEAD's commit on the new tip (replayCommit), moves HEAD and the work tree's files the
 * tip changed to it, and pushes once more. A conflict fails with GIT_FAILED: the next push re-imports.
 */
export async function pushReplaying(
  repo: LocalRepository & { dir: string },
  input: PushReplayingInput,
): Promise<{ rebased: boolean; sha: string }> {
  const { dir, gitdir, cache } = repo;
  const push = () =>
    pushBranch({
      gitdir,
      remote: input.remote,
      ref: 'HEAD',
      branch: input.branch,
      access: input.access,
      cache,
    });
  const head = await git.resolveRef({ fs, gitdir, ref: 'HEAD' });
  try {
    await push();
    return { rebased: false, sha: head };
  } catch (first) {
    if (!(first instanceof BranchMovedError)) throw first;
    const tip = await fetchBranch({
      gitdir,
      remote: { name: input.remote },
      branch: input.branch,
      depth: 1,
      access: input.access,
      cache,
    });
    const replayed = await replayCommit(repo, head, tip);
    if (!replayed) {
      throw new SvcError(
        'GIT_FAILED',
        `${input.branch} moved during the run and the re-import conflicts with it; the next push re-imports`,
        { cause: first },
      );
    }
    await moveHead(repo, replayed.sha);
    const moved = [...replayed.theirs.keys()];
    if (moved.length > 0) {
      await git.checkout({
        fs,
        dir,
        gitdir,
        cache,
        ref: replayed.sha,
        filepaths: moved,
        force: true,
        noUpdateHead: true,
      });
    }
    await push();
    return { rebased: true, sha: replayed.sha };
  }
}

/**
 * Makes the commit `sha` of `branch` available locally (a shallow checkout has only its head):
 * fetches the branch shallowly, then deeper, until the commit is there. isomorphic-git asks a
 * remote for branch tips only, not for a commit by id.
 */
export async function fetchCommitOf(
  repo: ObjectStore,
  sha: string,
  input: { remote: string; branch: string; access: RemoteAccess },
): Promise<void> {
  const has = async () => {
    try {
      await git.readCommit({ fs, gitdir: repo.gitdir, oid: sha, cache: repo.cache });
      return true;
    } catch {
      return false;
    }
  };
  if (await has()) return;
  if (!input.branch) {
    throw new SvcError(
      'GIT_FAILED',
      `the commit ${sha.slice(0, 7)} is not in the checkout and no branch is known to fetch it from`,
    );
  }
  for (const depth of FETCH_DEPTHS) {
    await fetchBranch({
      gitdir: repo.gitdir,
      remote: { name: input.remote },
      branch: input.branch,
      depth,
      access: input.access,
      cache: repo.cache,
    });
    if (await has()) return;
  }
  throw new SvcError(
    'GIT_FAILED',
    `the commit ${sha.slice(0, 7)} is not among the last ${FETCH_DEPTHS.at(-1)} commits of ${input.branch}`,
  );
}

const FETCH_DEPTHS = [1, 50, 1000] as const;
