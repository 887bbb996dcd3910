/**
 * The git side of the control service, with isomorphic-git only (no git binary needed):
 * a registered repository is either a local repository (its own object store is read and
 * written) or an http(s) git URL (a bare cache repository under the data directory, fetched
 * shallowly from the remote and pushed back to it).
 *
 * Reads and writes go through git objects, not a work tree: the folder at the branch head is
 * read blob by blob; an import's result becomes blobs and trees grafted onto the head's tree
 * and one commit whose parent is that head.
 */
import fs from 'node:fs';
import { chmod, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { unsafePathReason } from '../../folder/folder-paths.js';
import type { FolderFiles } from '../../folder/model.js';
import type { AddressPolicy } from '../../generator/sources/address-policy.js';
import {
  BranchMovedError,
  branchTip,
  type GitTreeEntry as TreeEntry,
  readBlob,
  readCommitMessage,
  readTreeAt,
  readTreeEntries,
  setBranch,
  DEFAULT_MAX_FETCH_BYTES,
  fetchBranch,
  gitFailureReason,
  hostScopedCredential,
  initRemoteCache,
  pushBranch,
  remoteAccess,
  remoteCacheDir,
} from '../../generator/sources/git/index.js';

import { gitStepError } from './git-failure.js';
import { commitFolder, materializeFolder } from './job-tree.js';

export interface GitRepository {
  /** The repository as registered (absolute path or URL). */
  readonly location: string;
  readonly remote: boolean;
  /** The commit at the tip of `branch` (fetched first for a remote). */
  head(branch: string): Promise<string>;
  /** Every file under `path` at `commit`, as UTF-8 text keyed by path relative to `path`. */
  readFolder(commit: string, path: string): Promise<FolderFiles>;
  /** Writes the whole tree at `commit` to `dir` (the import reads sources beside the folder). */
  materialize(commit: string, dir: string): Promise<void>;
  /**
   * Writes only the folder at `path` and the sources its config.yaml names to `dir`, at their
   * repository paths (job-tree.ts); returns the repository paths written.
   */
  materializeFolder(commit: string, path: string, dir: string, signal?: AbortSignal): Promise<string[]>;
  /**
   * Replaces `path` in `base`'s tree with the files of `folderDir` and commits that on top of
   * `base` (job-tree.ts: unchanged blobs and trees are reused); undefined when the tree does not change.
   */
  commitFolder(input: {
    base: string;
    path: string;
    folderDir: string;
    message: string;
    author: { name: string; email: string };
    now: Date;
    signal?: AbortSignal;
  }): Promise<string | undefined>;
  /** Moves `branch` from `base` to `commit` (a push for a remote); BRANCH_MOVED when it moved meanwhile. */
  publish(branch: string, base: string, commit: string): Promise<void>;
  readCommitMessage(commit: string): Promise<string>;
  /** Deletes what the service keeps of the repository (a remote's cache); nothing for a local one. */
  discard(): Promise<void>;
}

export interface OpenRepositoryOptions {
  /** Where remote repositories are cached (one bare repository per URL). */
  cacheDir: string;
  /** A token for https git hosts (sent as x-access-token basic auth when the host asks). */
  gitToken?: string;
  /**
   * The hosts (`host` or `host:port`, SVC_GIT_TOKEN_HOSTS) `gitToken` may be sent to: only these,
   * only over https (http for a loopback host, as tests use), never after a redirect elsewhere.
   */
  gitTokenHosts?: readonly string[];
  /** Which addresses a remote may be reached at (default: public addresses only). */
  policy?: AddressPolicy;
  /** Most bytes one answer of a remote may bring (default 512 MiB). */
  maxFetchBytes?: number;
}

/** Most bytes a server folder read from git may hold (the snapshot is served from it). */
export const MAX_FOLDER_BYTES = 64 * 1024 * 1024;

export { BranchMovedError, tokenAllowedFor } from '../../generator/sources/git/index.js';

const locks = new Map<string, Promise<unknown>>();
/** Runs `task` after every earlier task on the same key (one fetch or push per cache at a time). */
function serialized<T>(key: string, task: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const next = previous.catch(() => undefined).then(task);
  locks.set(key, next);
  next
    .finally(() => {
      if (locks.get(key) === next) locks.delete(key);
    })
    .catch(() => undefined);
  return next;
}

/** A URL as given; a local path made absolute against `cwd`. */
export function normaliseLocation(repository: string, cwd: string): string {
  return isRemoteLocation(repository) ? repository.trim() : resolve(cwd, repository);
}

export function isRemoteLocation(repository: string): boolean {
  return /^https?:\/\//i.test(repository);
}

function gitFailed(message: string, location: string, cause: unknown): SvcError {
  // Never the remote's own words: a git error quotes the start of whatever answered.
  const detail = typeof cause === 'string' ? cause : gitFailureReason(cause);
  return new SvcError('GIT_FAILED', `${message}: ${detail}`, { place: { url: location }, cause });
}

export async function openRepository(
  repository: string,
  opts: OpenRepositoryOptions,
): Promise<GitRepository> {
  if (isRemoteLocation(repository)) {
    const url = new URL(repository);
    if (url.username || url.password) {
      throw new SvcError('USAGE', 'put no credential in the repository URL; set SVC_GIT_TOKEN instead', {
        place: { field: 'repository' },
      });
    }
    await mkdir(resolve(opts.cacheDir), { recursive: true, mode: 0o700 });
    const gitdir = remoteCacheDir(opts.cacheDir, repository);
    await initRemoteCache(gitdir, repository);
    // SVC_GIT_TOKEN goes only to the hosts in SVC_GIT_TOKEN_HOSTS; fetch and push share the access.
    const access = remoteAccess({
      ...(opts.policy ? { policy: opts.policy } : {}),
      maxBytes: opts.maxFetchBytes ?? DEFAULT_MAX_FETCH_BYTES,
      ...(opts.gitToken ? { credential: hostScopedCredential(opts.gitToken, opts.gitTokenHosts ?? []) } : {}),
    });
    return objectRepository(repository, gitdir, {
      async head(branch) {
        return serialized(gitdir, async () => {
          try {
            return await fetchBranch({ gitdir, remote: { name: 'origin' }, branch, depth: 1, access });
          } catch (error) {
            if ((error as { code?: string })?.code === 'HttpError' && access.withheldFrom(repository)) {
              throw gitFailed(
                `cannot fetch ${branch}`,
                repository,
                `${gitFailureReason(error)} (SVC_GIT_TOKEN is sent only to the hosts in SVC_GIT_TOKEN_HOSTS, over https)`,
              );
            }
            throw gitFailed(`cannot fetch ${branch}`, repository, error);
          }
        });
      },
      async publish(branch, base, commit) {
        await serialized(gitdir, async () => {
          await setBranch({ gitdir, cache: {} }, branch, commit);
          try {
            await pushBranch({ gitdir, remote: 'origin', ref: branch, branch, access });
          } catch (error) {
            if (error instanceof BranchMovedError) throw error;
            // The remote refused the ref: its reason, already on one short line.
            if (error instanceof SvcError) {
              throw new SvcError('GIT_FAILED', error.message, { place: { url: repository }, cause: error });
            }
            throw gitFailed(`cannot push ${branch}`, repository, error);
          }
          void base;
        });
      },
      async discard() {
        await serialized(gitdir, () => rm(gitdir, { recursive: true, force: true }));
      },
    });
  }
  const dir = resolve(repository);
  let gitdir: string;
  if (fs.existsSync(join(dir, '.git'))) gitdir = join(dir, '.git');
  else if (fs.existsSync(join(dir, 'HEAD')) && fs.existsSync(join(dir, 'objects'))) gitdir = dir;
  else throw new SvcError('USAGE', `not a git repository: ${dir}`, { place: { file: dir } });
  return objectRepository(dir, gitdir, {
    async head(branch) {
      try {
        return await branchTip({ gitdir, cache: {} }, branch);
      } catch (error) {
        throw gitFailed(`no branch ${branch}`, dir, error);
      }
    },
    async publish(branch, base, commit) {
      await serialized(gitdir, async () => {
        const now = await branchTip({ gitdir, cache: {} }, branch);
        if (now !== base) throw new BranchMovedError(branch);
        await setBranch({ gitdir, cache: {} }, branch, commit);
      });
    },
    async discard() {},
  });
}

function objectRepository(
  location: string,
  gitdir: string,
  transport: Pick<GitRepository, 'head' | 'publish' | 'discard'>,
): GitRepository {
  async function treeAt(commit: string, path: string): Promise<string> {
    const clean = path.replace(/^\/+|\/+$/g, '');
    let tree: Awaited<ReturnType<typeof readTreeAt>>;
    try {
      tree = await readTreeAt({ gitdir, cache: {} }, commit, clean);
    } catch (error) {
      if (unsafeEntry(error)) throw unsafeEntry(error);
      // A damaged or incomplete object store is not a missing folder: say which it is.
      throw gitStepError(error, {
        repository: location,
        doing: `reading ${clean || '/'} at ${commit.slice(0, 7)}`,
      });
    }
    if (!tree) {
      throw new SvcError('FOLDER_NOT_FOUND', `no folder ${clean || '/'} at ${commit.slice(0, 7)}`, {
        place: { file: clean, url: location },
      });
    }
    return tree.oid;
  }

  /** isomorphic-git refuses a tree holding `..` or `.git`: said by name, not as an internal error. */
  function unsafeEntry(error: unknown): SvcError | undefined {
    const e = error as { code?: string; data?: { filepath?: string } };
    if (e?.code !== 'UnsafeFilepathError') return undefined;
    return new SvcError(
      'FOLDER_INVALID',
      `the repository's tree holds an entry named ${JSON.stringify(e.data?.filepath ?? '?')}, which svc refuses to read`,
      { place: { url: location } },
    );
  }

  async function walkTree(
    treeOid: string,
    prefix: string,
    visit: (path: string, entry: TreeEntry, blob: Uint8Array) => Promise<void> | void,
  ): Promise<void> {
    let tree: TreeEntry[];
    try {
      tree = await readTreeEntries({ gitdir, cache: {} }, treeOid);
    } catch (error) {
      throw unsafeEntry(error) ?? error;
    }
    for (const entry of tree) {
      const path = `${prefix}${entry.path}`;
      // A tree entry named `..`, `.git` or holding a slash would write outside the copy, or into git.
      if (unsafePathReason(entry.path) || entry.path.includes('/') || entry.path.toLowerCase() === '.git') {
        throw new SvcError(
          'FOLDER_INVALID',
          `the repository's tree holds an entry named ${JSON.stringify(entry.path)}, which svc refuses to read`,
          { place: { file: path, url: location } },
        );
      }
      if (entry.type === 'tree') await walkTree(entry.oid, `${path}/`, visit);
      else if (entry.type === 'blob' && entry.mode !== '120000') {
        const blob = await readBlob({ gitdir, cache: {} }, entry.oid);
        await visit(path, entry, blob);
      }
    }
  }

  return {
    location,
    remote: isRemoteLocation(location),
    head: transport.head,
    publish: transport.publish,
    discard: transport.discard,
    async readFolder(commit, path) {
      const files: FolderFiles = {};
      const decoder = new TextDecoder();
      let total = 0;
      await walkTree(await treeAt(commit, path), '', (p, _entry, blob) => {
        // A server folder is YAML and Markdown: one that is not stops here, not in memory.
        total += blob.byteLength;
        if (total > MAX_FOLDER_BYTES) {
          throw new SvcError(
            'FOLDER_INVALID',
            `the folder ${path} at ${commit.slice(0, 7)} holds more than ${MAX_FOLDER_BYTES} bytes`,
            { place: { file: p, url: location } },
          );
        }
        files[p] = decoder.decode(blob);
      });
      return files;
    },
    async materialize(commit, dir) {
      await mkdir(dir, { recursive: true });
      await walkTree(await treeAt(commit, ''), '', async (p, entry, blob) => {
        const full = join(dir, ...p.split('/'));
        await mkdir(join(full, '..'), { recursive: true });
        await writeFile(full, blob);
        if (entry.mode === '100755') await chmod(full, 0o755);
      });
    },
    async materializeFolder(commit, path, dir, signal) {
      return (await materializeFolder({ gitdir }, { commit, path, dir, ...(signal ? { signal } : {}) }))
        .paths;
    },
    commitFolder: (input) => commitFolder({ gitdir }, input),
    async readCommitMessage(commit) {
      return readCommitMessage({ gitdir, cache: {} }, commit);
    },
  };
}
