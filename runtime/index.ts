export { createApp, type CreateAppOptions, type RuntimeApp } from './app.js';
export { bootHeapState, holdBootHeap } from './boot-heap.js';
export { type ConfigStore, createConfigStore } from './config-store.js';
export {
  DEFAULT_HOST,
  DEFAULT_PORT,
  parseRuntimeEnv,
  RUNTIME_ENV_VARIABLES,
  type RuntimeEnv,
} from './env.js';
export { loadBundle, loadFolderDir, type LoadedSource } from './load-source.js';
export {
  compileConfig,
  type CompiledTool,
  type ListedTool,
  type LoadedConfig,
  RUNTIME_VERSION,
  WIDGET_MIME,
} from './loaded-config.js';
export { jsonLineLogger, type LogLevel, type Logger, type LogRecord, memoryLogger } from './logger.js';
export { buildOriginPolicy, checkOrigin, type OriginDecision, type OriginPolicy } from './origin-policy.js';
export { createRedactor, REDACTED, type Redactor } from './redact.js';
export { type RunningRuntime, type StartRuntimeOptions, startRuntime } from './start-runtime.js';
export {
  type RunningRuntimes,
  type ServedFolder,
  type StartRuntimesOptions,
  serverIdOfPath,
  startRuntimes,
} from './start-runtimes.js';
export {
  createSnapshotPoller,
  folderFromSnapshot,
  type SnapshotPoller,
  type SnapshotPollerOptions,
  type SyncOutcome,
  snapshotUrl,
} from './sync/index.js';
export { buildUpstreamRequest, type UpstreamRequest } from './upstream-request.js';
