/**
 * The server folder: read it (readFolder, I/O), load and validate it (loadFolder, pure; every
 * problem a FOLDER_INVALID with file, field and line), write it atomically (writeFolder, I/O).
 * Content parsing (frontmatter, doc titles) lives here too because the runtime needs it; the
 * importer's spec 2.5 rules sit on top of it in generator/content.
 */
export {
  type CheckToolsOptions,
  checkTools,
  compileToolSchema,
  type ToolCheckResult,
} from './check-tools.js';
export { undeclaredRequired } from './required-names.js';
export { isServed } from './served.js';
export {
  type ContentEntry,
  classifyContentPath,
  ITEM_NAME,
  MAX_DOC_DEPTH,
  parseContentEntries,
  sortItems,
} from './content-items.js';
export { appendRecord } from './append-record.js';
export { firstHeading } from './doc-title.js';
export { renameSynced, writeFileSynced } from './durable-fs.js';
export { folderInvalid } from './folder-problems.js';
export { isManagedPath, MANAGED_DIRS, MANAGED_FILES, MANAGED_TOP, unsafePathReason } from './folder-paths.js';
export { splitFrontmatter } from './frontmatter.js';
export {
  CONFIG_FILE,
  type LoadFolderResult,
  loadConfig,
  loadFolder,
  loadsPath,
  MAX_FOLDER_FILE_CHARS,
  skipUnloaded,
  TOOL_KEY,
} from './load-folder.js';
export { type LocatedViolation, validateLocated } from './locate-violations.js';
export * from './model.js';
export { type ReadFolderOptions, readFolder } from './read-folder.js';
export { readFolderBetweenWrites } from './read-between-writes.js';
export { DEFAULT_SERVER_NAME, serverTitle } from './server-title.js';
export { type WriteFolderOptions, withFolderLock, writeFolder } from './write-folder.js';
export { lineOfPointer, MAX_ALIAS_COUNT, parseYaml } from './yaml-file.js';
