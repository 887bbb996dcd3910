/**
 * startRuntime: the one way to run the runtime (svc serve, npm start, the container). Loads
 * and validates the folder (or legacy bundle), refuses to boot with an SvcError naming the
 * file and field or the missing variable, listens with @hono/node-server, logs the MCP URLs
 * and the warnings a deployer must see, reloads on change with --watch, and closes
 * gracefully (in-flight calls finish).
 */
// First: it must run before the SDK's modules are evaluated (see boot-heap.ts).
import { releaseBootHeap } from './boot-heap.js';
import { createPublicKey, type KeyObject, randomBytes } from 'node:crypto';
import { type FSWatcher, watch as fsWatch } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { SvcError } from '../core/svc-error.js';
import { readFolderBetweenWrites } from '../folder/read-between-writes.js';
import type { FolderModel } from '../folder/model.js';
import { createApp, type RuntimeApp, type SyncHealth } from './app.js';
import { warnInboundAuth } from './auth/boot-checks.js';
import { type ConfigStore, createConfigStore } from './config-store.js';
import type { RuntimeEnv } from './env.js';
import { createExecutionLog } from './execution-log.js';
import { folderCommit } from './folder-commit.js';
import { loadBundle, loadFolderDir, modelFromFiles } from './load-source.js';
import { createRuntimeMetrics } from './metrics.js';
import { jsonLineLogger, type Logger, redactingLogger } from './logger.js';
import { basicCredentials } from './upstream-request.js';
import { createRedactor } from './redact.js';
import { createSnapshotPoller, type SnapshotPoller } from './sync/index.js';

export interface StartRuntimeOptions {
  env: RuntimeEnv;
  /** Folder to serve; defaults to env.folderPath, then env.bundlePath (deprecated). */
  folderDir?: string;
  /** Reload the folder when its files change. */
  watch?: boolean;
  logger?: Logger;
  fetch?: typeof fetch;
  /** Serve this model instead of reading a folder (tests, benchmarks). */
  folder?: FolderModel;
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

/** SVC_SNAPSHOT_PUBLIC_KEY: the PEM itself, or the path of a file holding it. */
async function snapshotPublicKey(value: string): Promise<KeyObject> {
  let pem = value;
  if (!value.includes('-----BEGIN')) {
    try {
      pem = await readFile(value, 'utf8');
    } catch (error) {
      throw new SvcError('CONFIG_MISSING_ENV', `SVC_SNAPSHOT_PUBLIC_KEY: cannot read the file ${value}`, {
        place: { field: 'SVC_SNAPSHOT_PUBLIC_KEY', file: value },
        cause: error,
      });
    }
  }
  try {
    const key = createPublicKey(pem);
    if (key.asymmetricKeyType === 'ed25519') return key;
  } catch {
    // Reported below.
  }
  throw new SvcError(
    'USAGE',
    'SVC_SNAPSHOT_PUBLIC_KEY is not an Ed25519 public key in PEM (see svc control key)',
    {
      place: { field: 'SVC_SNAPSHOT_PUBLIC_KEY' },
    },
  );
}

export function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

/** Below this length an upstream secret is warned about: redacting it mangles ordinary text. */
export const MIN_SECRET_CHARS = 8;

export function checkBootConfig(folder: FolderModel, env: RuntimeEnv, logger: Logger): void {
  const auth = folder.config.auth;
  const secretModes = ['api_key', 'bearer', 'basic'];
  if (secretModes.includes(auth.mode) && auth.hasAuthSecret && !env.upstreamSecret) {
    throw new SvcError(
      'CONFIG_MISSING_ENV',
      `SVC_UPSTREAM_SECRET is not set: config.yaml uses auth mode "${auth.mode}", whose credential comes only from that variable`,
      { place: { file: 'config.yaml', field: 'SVC_UPSTREAM_SECRET' } },
    );
  }
  if (auth.mode === 'basic' && env.upstreamSecret && !env.upstreamUser && !env.upstreamSecret.includes(':')) {
    throw new SvcError(
      'CONFIG_MISSING_ENV',
      'SVC_UPSTREAM_USER is not set and SVC_UPSTREAM_SECRET is not "user:password": basic auth needs a user name',
      { place: { file: 'config.yaml', field: 'SVC_UPSTREAM_USER' } },
    );
  }
  if (env.upstreamSecret && [...env.upstreamSecret].length < MIN_SECRET_CHARS) {
    // The redactor still replaces it everywhere: no secret reaching a client beats readable results.
    logger.log('warn', 'short_secret', {
      message: `SVC_UPSTREAM_SECRET is shorter than ${MIN_SECRET_CHARS} characters. Redaction still replaces it in every form it knows (any letter case, percent-, JSON-, HTML-escaped, hex, base64) wherever it appears in a result, an error or a log line, inside words too, so results and logs will show [REDACTED] in ordinary text. Use a longer credential if the API allows one.`,
    });
  }
  warnInboundAuth(folder, env, logger);
}

export async function startRuntime(opts: StartRuntimeOptions): Promise<RunningRuntime> {
  try {
    return await boot(opts);
  } finally {
    // Listening, or refused: either way boot's allocations are over.
    releaseBootHeap();
  }
}

async function boot(opts: StartRuntimeOptions): Promise<RunningRuntime> {
  const { env } = opts;
  const basicPair = env.upstreamSecret ? basicCredentials(env.upstreamSecret, env.upstreamUser) : undefined;
  const sessionKey = env.sessionSecret ? Buffer.from(env.sessionSecret) : undefined;
  const oauthSecrets = Object.entries(env.oauthClients ?? {})
    .filter(([name]) => name.includes('SECRET'))
    .map(([, value]) => value);
  const redact = createRedactor([
    env.upstreamSecret,
    basicPair,
    env.deployToken,
    sessionKey?.toString('base64'),
    sessionKey?.toString('hex'),
    ...oauthSecrets,
  ]);
  const logger = redactingLogger(opts.logger ?? jsonLineLogger({ redact }), redact);

  const dir = opts.folderDir ?? env.folderPath;
  const load = async (): Promise<FolderModel> => {
    if (opts.folder) return opts.folder;
    if (dir) return (await loadFolderDir(dir)).folder;
    if (env.bundlePath) {
      logger.log('warn', 'bundle_deprecated', {
        message:
          'SVC_BUNDLE_PATH (single-file bundle) is deprecated: export the standard folder and set SVC_FOLDER_PATH instead',
        bundle: env.bundlePath,
      });
      return (await loadBundle(env.bundlePath)).folder;
    }
    throw new SvcError('CONFIG_MISSING_ENV', 'no folder to serve: pass a folder or set SVC_FOLDER_PATH', {
      place: { field: 'SVC_FOLDER_PATH' },
    });
  };

  const folder = await load();
  checkBootConfig(folder, env, logger);
  // A key that cannot be read refuses the boot, before anything listens.
  const publicKey = env.snapshotPublicKey ? await snapshotPublicKey(env.snapshotPublicKey) : undefined;
  const commit = dir && !opts.folder ? await folderCommit(dir) : undefined;
  const store = createConfigStore(folder, { keep: env.configVersions, ...(commit ? { commit } : {}) });

  const executionLog =
    env.executionLog !== undefined || opts.executionLogWrite
      ? createExecutionLog({
          target: env.executionLog ?? 'stdout',
          maxBytes: env.executionLogMaxBytes,
          logArguments: env.logArguments,
          redact,
          ...(opts.executionLogWrite ? { write: opts.executionLogWrite } : {}),
        })
      : undefined;
  // Loaded only when asked for: the OpenTelemetry SDK costs boot time and memory.
  const tracing = env.otel ? (await import('./tracing.js')).createTracing(env.otel) : undefined;
  let runtime: RuntimeApp | undefined;
  let sync: SnapshotPoller | undefined;
  // Sync health for /readyz: stale once no poll has reached the control service for 3 intervals.
  const syncIntervalMs = opts.syncIntervalMs ?? env.syncIntervalSec * 1000;
  let lastSyncOk = Date.now();
  let syncFailures = 0;
  const syncHealth = (): SyncHealth => ({
    ok: Date.now() - lastSyncOk <= 3 * syncIntervalMs,
    lastSuccess: new Date(lastSyncOk).toISOString(),
    consecutiveFailures: syncFailures,
  });
  const server = serve({
    // env carries the Node request (client address, body read straight off the socket).
    fetch: (request: Request, env: unknown) => {
      if (!runtime) return new Response('starting', { status: 503 });
      return runtime.app.fetch(request, env);
    },
    port: env.port,
    hostname: env.host,
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', () => resolve());
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE'
          ? new SvcError(
              'PORT_IN_USE',
              `port ${env.port} on ${env.host} is already in use; stop what listens there or pick another port (--port or MCP_RUNTIME_PORT)`,
              { place: { field: 'MCP_RUNTIME_PORT' }, cause: error },
            )
          : new SvcError(
              'USAGE',
              `cannot listen on ${env.host}:${env.port}: ${error.code ?? error.message}`,
              {
                place: { field: 'MCP_RUNTIME_PORT' },
                cause: error,
              },
            ),
      ),
    );
  });
  const port = (server.address() as AddressInfo).port;
  runtime = createApp({
    store,
    env,
    logger,
    listenPort: port,
    // In sync mode a replica takes traffic once its first poll has settled (contracts/fleet.md).
    ready: () => sync?.settled() ?? true,
    ...(opts.fetch ? { fetch: opts.fetch } : {}),
    ...(opts.sessionIdleMs !== undefined ? { sessionIdleMs: opts.sessionIdleMs } : {}),
    ...(opts.maxSessions !== undefined ? { maxSessions: opts.maxSessions } : {}),
    ...(opts.fastPath !== undefined ? { fastPath: opts.fastPath } : {}),
    ...(opts.maxSessionsPerClient !== undefined ? { maxSessionsPerClient: opts.maxSessionsPerClient } : {}),
    syncEtag: () => sync?.etag(),
    ...(env.syncUrl && env.deployToken ? { syncHealth } : {}),
    ...(executionLog ? { executionLog } : {}),
    ...(tracing ? { tracing } : {}),
    ...(env.metrics ? { metrics: createRuntimeMetrics } : {}),
  });

  const base = `http://${displayHost(env.host)}:${port}`;
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
    source: opts.folder ? 'model' : (dir ?? env.bundlePath),
  });
  if (!env.allowedOrigins) {
    logger.log('warn', 'origins_unrestricted', {
      message:
        'MCP_ALLOWED_ORIGINS is not set: browser requests from every origin are accepted. Set it to a comma-separated list of origins to restrict them.',
    });
  }
  if (env.syncUrl && env.deployToken) {
    sync = createSnapshotPoller({
      ...(publicKey ? { publicKey } : {}),
      runtimeId: env.runtimeId ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
      syncUrl: env.syncUrl,
      deployToken: env.deployToken,
      serverId: config.serverId,
      store,
      intervalMs: syncIntervalMs,
      ...(opts.syncTimeoutMs !== undefined ? { timeoutMs: opts.syncTimeoutMs } : {}),
      logger,
      // A synced config is refused exactly as boot would refuse it (e.g. SVC_UPSTREAM_SECRET missing).
      check: (next) => checkBootConfig(next, env, logger),
      onOutcome: (outcome) => {
        if (outcome.kind === 'stopped') return;
        const ok = outcome.kind === 'updated' || outcome.kind === 'unchanged';
        if (ok) {
          lastSyncOk = Date.now();
          syncFailures = 0;
        } else syncFailures++;
        runtime?.metrics?.sync(ok, Date.now());
      },
    });
    sync.start();
  }
  if (config.toolList.length === 0) {
    logger.log('warn', 'no_enabled_tools', {
      message: 'no tool is enabled: set enabled: true in Tools/<tool>.yaml',
    });
  }

  let watcher: FSWatcher | undefined;
  /** How long --watch waits for a write of the folder to end before reading it anyway (as readers do). */
  const WRITE_WAIT_MS = 30_000;
  let reloadTimer: NodeJS.Timeout | undefined;
  if (opts.watch && dir && !opts.folder) {
    const debounceMs = opts.watchDebounceMs ?? 150;
    /** Since when a write has kept the folder from being read (undefined: none is under way). */
    let waitingSince: number | undefined;
    const reload = async () => {
      try {
        // Only a whole version is served: while svc writes the folder (its lock or journal is
        // beside it), look again shortly. A write that never ends (its writer died) is finished
        // by the ordinary read once a swap's worth of waiting has passed.
        const files = await readFolderBetweenWrites(dir);
        if (files === undefined) {
          if (waitingSince === undefined) {
            waitingSince = Date.now();
            logger.log('info', 'config_reload_waiting', { reason: 'a write of the folder is under way' });
          }
          if (Date.now() - waitingSince < WRITE_WAIT_MS) {
            clearTimeout(reloadTimer);
            if (watcher) reloadTimer = setTimeout(() => void reload(), Math.max(debounceMs, 20));
            return;
          }
        }
        waitingSince = undefined;
        const next = files
          ? { folder: modelFromFiles(files, `the folder ${dir}`) }
          : await loadFolderDir(dir);
        checkBootConfig(next.folder, env, { log() {} });
        const commit = await folderCommit(dir);
        store.swap(next.folder, commit ? { commit } : {});
        logger.log('info', 'config_reloaded', {
          version: store.version(),
          tools: store.current().toolList.length,
        });
      } catch (error) {
        const message = error instanceof SvcError ? error.describe() : String(error);
        logger.log('warn', 'config_reload_refused', { message, keptVersion: store.version() });
      }
    };
    watcher = fsWatch(dir, { recursive: true }, (_event, file) => {
      const name = String(file ?? '');
      if (name.startsWith('.svc') || name.startsWith('.git')) return;
      clearTimeout(reloadTimer);
      reloadTimer = setTimeout(() => void reload(), debounceMs);
    });
    watcher.on('error', (error) => logger.log('warn', 'watch_failed', { message: error.message }));
    logger.log('info', 'watching', { folder: dir });
  }

  let closed: Promise<void> | undefined;
  return {
    url: `${base}/mcp`,
    port,
    store,
    sessionCount: () => runtime?.sessionCount() ?? 0,
    hotPathServed: () => runtime?.hotPathServed() ?? 0,
    ...(sync ? { sync } : {}),
    close() {
      closed ??= (async () => {
        await sync?.stop();
        watcher?.close();
        watcher = undefined;
        clearTimeout(reloadTimer);
        const closing = new Promise<void>((resolve) => server.close(() => resolve()));
        await runtime?.close(env.shutdownGraceMs);
        // Idle keep-alive sockets would otherwise hold close() open.
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        const force = setTimeout(
          () => (server as { closeAllConnections?: () => void }).closeAllConnections?.(),
          2000,
        );
        force.unref();
        await closing;
        clearTimeout(force);
        await executionLog?.close();
        await tracing?.shutdown().catch(() => undefined);
        logger.log('info', 'runtime_stopped', {});
      })();
      return closed;
    },
  };
}
