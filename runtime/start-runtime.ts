/**
 * startRuntime: the one way to run the runtime (svc serve, npm start, the container). Loads
 * and validates the folder (or legacy bundle), refuses to boot with an SvcError naming the
 * file and field or the missing variable, listens with @hono/node-server, logs the MCP URLs
 * and the warnings a deployer must see, reloads on change with --watch, and closes
 * gracefully (in-flight calls finish).
 */
// The boot hold itself starts at the entry points (runtime/main.ts, svc serve); this only ends it.
import { releaseBootHeap } from './boot-heap.js';
import type { FolderModel } from '../folder/model.js';
import type { RuntimeApp } from './app.js';
import { checkBootConfig, warnNoTools, warnOriginsUnrestricted } from './boot/boot-checks.js';
import { bootLogger } from './boot/boot-logger.js';
import { buildApp } from './boot/build-app.js';
import { listen, starting } from './boot/listen.js';
import { loadServedFolder } from './boot/load-folder.js';
import { startServices } from './boot/services.js';
import { createSyncStep } from './boot/start-sync.js';
import { watchFolder } from './boot/watch-folder.js';
import { type ConfigStore, type ConfigStoreOptions, createConfigStore } from './config-store.js';
import type { RuntimeEnv } from './env.js';
import type { Logger } from './logger.js';
import type { SnapshotPoller } from './sync/index.js';

export { checkBootConfig, MIN_SECRET_CHARS } from './boot/boot-checks.js';
export { displayHost } from './boot/listen.js';

export interface StartRuntimeOptions {
  env: RuntimeEnv;
  /** Folder to serve; defaults to env.folderPath, then env.bundlePath (deprecated). */
  folderDir?: string;
  /** Reload the folder when its files change. */
  watch?: boolean;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Schemas known clean (svc serve: the user's cache that svc validate fills); see ConfigStoreOptions. */
  cleanSchemas?: ConfigStoreOptions['cleanSchemas'];
  /** Serve this model instead of reading a folder (tests, benchmarks). */
  folder?: FolderModel;
  /** The clock of sessions and tokens, in epoch ms (tests: idle expiry without waiting). */
  now?: () => number;
  sessionIdleMs?: number;
  /** Cap on open 2025-11-25 sessions (default 10,000); the least recently used idle one is evicted. */
  maxSessions?: number;
  /** Cap on open 2025-11-25 sessions per client address (default 1,000). */
  maxSessionsPerClient?: number;
  /** false: serve every request through the SDK, without the tools/call + tools/list hot path (benchmarks). */
  fastPath?: boolean;
  /** Debounce of --watch reloads in ms (default 150). */
  watchDebounceMs?: number;
  /** Sync poll interval in ms, overriding SVC_SYNC_INTERVAL (tests only: users keep the 10 s minimum). */
  syncIntervalMs?: number;
  /** Timeout of one snapshot request in ms (default 15000). */
  syncTimeoutMs?: number;
  /** Where execution log lines go instead of stdout or SVC_EXECUTION_LOG's file (tests). */
  executionLogWrite?: (line: string) => void;
}

export interface RunningRuntime {
  /** http://host:port/mcp */
  url: string;
  port: number;
  store: ConfigStore;
  /** Open 2025-11-25 sessions. */
  sessionCount(): number;
  /** Requests answered on the tools/call + tools/list hot path so far. */
  hotPathServed(): number;
  /** The config sync poller, when SVC_SYNC_URL is set. */
  sync?: SnapshotPoller;
  close(): Promise<void>;
}

export async function startRuntime(opts: StartRuntimeOptions): Promise<RunningRuntime> {
  try {
    return await boot(opts);
  } finally {
    // Listening, or refused: either way boot's allocations are over.
    releaseBootHeap();
  }
}

/** Read env, load config, build app, listen (then start sync and --watch); close drains. */
async function boot(opts: StartRuntimeOptions): Promise<RunningRuntime> {
  const { env } = opts;
  const { logger, redact } = bootLogger([env], opts.logger);
  const source = await loadServedFolder(opts, logger);
  checkBootConfig(source.folder, env, logger);
  const commit = source.commit ? { commit: source.commit } : {};
  const cleanSchemas = opts.cleanSchemas ? { cleanSchemas: opts.cleanSchemas } : {};
  const store = createConfigStore(source.folder, {
    keep: env.configVersions,
    ...commit,
    ...cleanSchemas,
    warmFirstDigest: false,
  });
  const services = await startServices(env, redact, opts.executionLogWrite);
  let runtime: RuntimeApp | undefined;
  // A snapshot key or state directory that cannot be read refuses the boot, before anything listens.
  const sync = await createSyncStep({ env, store, logger, tuning: opts, metrics: () => runtime?.metrics });
  const listening = await listen(
    env,
    (request, nodeEnv) => runtime?.app.fetch(request, nodeEnv) ?? starting(),
  );
  runtime = buildApp({ env, logger, services, tuning: opts }, store, listening.port, {
    // In sync mode a replica takes traffic once its first poll has settled (contracts/fleet.md).
    ready: () => sync?.poller.settled() ?? true,
    syncEtag: () => sync?.poller.etag(),
    ...(sync ? { syncHealth: sync.health } : {}),
  });
  logStarted(listening.base, store, source.folder, source.source, logger);
  // Every MCP answer names its config (Svc-Config-Commit: the digest when no commit is known):
  // computed now, while the first client connects, not before the runtime listens.
  setImmediate(() => store.current().digest);
  warnOriginsUnrestricted(env, logger);
  sync?.poller.start();
  warnNoTools(store.current().toolList.length, logger);
  const watch =
    opts.watch && source.dir
      ? watchFolder({ dir: source.dir, store, env, logger, ...debounce(opts.watchDebounceMs) })
      : undefined;

  let closed: Promise<void> | undefined;
  const app = runtime;
  return {
    url: `${listening.base}/mcp`,
    port: listening.port,
    store,
    sessionCount: () => app.sessionCount(),
    hotPathServed: () => app.hotPathServed(),
    ...(sync ? { sync: sync.poller } : {}),
    close() {
      closed ??= (async () => {
        await sync?.poller.stop();
        watch?.close();
        await listening.drain(() => app.close(env.shutdownGraceMs));
        await services.close();
        logger.log('info', 'runtime_stopped', {});
      })();
      return closed;
    },
  };
}

export function debounce(ms: number | undefined): { debounceMs?: number } {
  return ms !== undefined ? { debounceMs: ms } : {};
}

function logStarted(
  base: string,
  store: ConfigStore,
  folder: FolderModel,
  source: string | undefined,
  logger: Logger,
): void {
  const config = store.current();
  logger.log('info', 'runtime_started', {
    mcp: `${base}/mcp`,
    mcpServer: `${base}/mcp/${config.serverId}`,
    health: `${base}/healthz`,
    serverId: config.serverId,
    tools: config.toolList.length,
    prompts: config.promptList.length,
    resources: config.resourceList.length + config.templateList.length,
    auth: folder.config.auth.mode,
    source,
  });
}
