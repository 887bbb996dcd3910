/**
 * The one git layer of svc, over isomorphic-git (no git binary): a local repository read as
 * objects, trees edited as data, a work tree's paths committed, fetch and push over the guarded
 * HTTP client with a credential scoped to its host, and a push that re-applies its commit on a
 * branch that moved.
 */
export {
  cleanMessage,
  commitPaths,
  type CommitInput,
  type GitIdentity,
  moveHead,
  writeCommit,
} from './commit-work-tree.js';
export {
  changedFiles,
  commitMessage,
  hasCommit,
  type LocalRepository,
  listFiles,
  openLocalRepository,
  readFileAt,
  readBlobAt,
  readFilesAt,
  readTreeAt,
  resolveCommit,
  treeAt,
} from './local-repository.js';
export { gitFailureReason, type GuardedHttpOptions, guardedGitHttp } from './guarded-http.js';
export { fetchCommitOf, pushReplaying, replayCommit } from './push-replaying.js';
export {
  BranchMovedError,
  DEFAULT_MAX_FETCH_BYTES,
  fetchBranch,
  hostScopedCredential,
  isLoopbackUrl,
  pushBranch,
  type RemoteAccess,
  type RemoteCredential,
  type RemoteOptions,
  remoteAccess,
  tokenAllowedFor,
} from './remote.js';
export { initRemoteCache, remoteCacheDir } from './remote-cache.js';
export {
  applyChanges,
  branchTip,
  commitTree,
  diffTrees,
  EMPTY_TREE,
  type FileChanges,
  type FileEntry,
  type GitTreeEntry,
  type ObjectStore,
  readBlob,
  readCommitMessage,
  readTreeEntries,
  setBranch,
  treeFiles,
  writeBlob,
} from './tree-edit.js';
