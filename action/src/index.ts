export { COMMENT_MARKER, fitComment, findMarkedComment, upsertComment } from './comment.js';
export { readRunContext, resolveMode, type RunContext } from './context.js';
export type { EndpointChangeView, FolderEndpointDiff, ReimportView, SvcEngine } from './engine.js';
export { type FolderResult, countFolder, hasSomethingToReport } from './folder-result.js';
export { findServerFolders, folderSources, globToRegExp, serverName, touches } from './folders.js';
export {
  changedFiles,
  commitPaths,
  ensureCommit,
  gitAuthEnv,
  listFiles,
  pushRebasing,
  readFileAt,
  readFilesAt,
} from './git.js';
export { historyEndpointDiff, latestImport } from './history-diff.js';
export { type ActionInputs, readInputs, splitPatterns } from './inputs.js';
export { commitMessage, IMPORT_TRAILER, isOwnCommit } from './merge-mode.js';
export { parseOutputFile, writeOutputs, writeSummary } from './outputs.js';
export { neededForDiff } from './pull-request-mode.js';
export { NOTHING_TO_REPORT, renderResults, summaryLine } from './render.js';
export { type ActionDeps, type ActionResult, runAction, shouldFail } from './run-action.js';
export { svcEngine } from './svc-engine.js';
export { diffTools, enabledEndpoints, type ToolChange } from './tool-changes.js';
