/**
 * Starts the control service: opens the database (embedded or PostgreSQL) and runs its
 * migrations, loads the key that seals webhook secrets, listens with @hono/node-server and
 * starts the import worker. The only place of the service that listens or reads the disk layout.
 */
import { stat } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { chmod, mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { type ServerType, serve } from '@hono/node-server';
import { jsonLineLogger, type Logger } from '../runtime/logger.js';
import { createControlApp } from './control-app.js';
import { ensureControlDataDir } from './data-dir.js';
import { createControlMetrics } from './control-metrics.js';
import { type GitRepository, openRepository } from './git/git-repository.js';
import { createImportWorker, type ImportWorker } from './import-worker.js';
import { PublishedSnapshots } from './published-snapshot.js';
import { loadSigningKey } from './snapshot-signing-key.js';
import { loadControlKey, secretBox } from '../core/secret-box.js';
import { ControlStore } from './store/control-store.js';
import { openDatabase } from './store/open-database.js';
import { SvcError } from '../core/svc-error.js';
import { type AddressPolicy, addressPolicy } from '../generator/sources/address-policy.js';

export interface StartControlOptions {
  port?: number;
  host?: string;
  dataDir: string;
  databaseUrl?: string;
  /** SVC_CONTROL_KEY (base64, 32 bytes); else `<data>/secret.key`. */
  controlKey?: string;
  /** SVC_GIT_TOKEN: credential for https git remotes. */
  gitToken?: string;
  /** SVC_GIT_TOKEN_HOSTS: the only hosts SVC_GIT_TOKEN is sent to (over https; http to loopback). */
  gitTokenHosts?: readonly string[];
  /**
   * SVC_CONTROL_ALLOW_PRIVATE=1: repository and source URLs may lead to loopback, private and
   * link-local addresses (default: refused, at every redirect).
   */
  allowPrivateAddresses?: boolean;
  /** Tests: the address policy itself (wins over allowPrivateAddresses). */
  addressPolicy?: AddressPolicy;
  /** Most bytes one answer of a repository's remote may bring (default 512 MiB). */
  maxFetchBytes?: number;
  cwd?: string;
  /** How long a branch head is trusted before it is looked up again (default 5 s). */
  headRefreshMs?: number;
  /** Worker: how often it looks for jobs queued elsewhere (default 1 s), and the job lease (default 60 s). */
  workerPollMs?: number;
  leaseMs?: number;
  /** Finished import jobs kept per server (SVC_CONTROL_KEEP_JOBS, default 200). */
  keepJobs?: number;
  /** How long a status-page sign-in lasts (default 12 hours). */
  sessionTtlMs?: number;
  /** SVC_CONTROL_TRUST_PROXY: X-Forwarded-Proto from the proxy in front decides `Secure` cookies. */
  trustProxy?: boolean;
  /** false: serve the API only (no import worker in this process). */
  worker?: boolean;
  /** On close, how long requests in flight may take before their connections are cut (default 5000 ms). */
  shutdownGraceMs?: number;
  /** false: no GET /metrics (default on). */
  metrics?: boolean;
  /** SVC_METRICS_TOKEN: GET /metrics needs it as a bearer token. */
  metricsToken?: string;
  /** SVC_PROMETHEUS_URL: the servers page shows calls, errors and p95 per server from it. */
  prometheusUrl?: string;
  logger?: Logger;
}

export interface RunningControl {
  url: string;
  port: number;
  store: ControlStore;
  worker?: ImportWorker;
  close(): Promise<void>;
}

export async function openControlStore(opts: {
  dataDir: string;
  databaseUrl?: string;
}): Promise<ControlStore> {
  if (!opts.databaseUrl) await ensureControlDataDir(opts.dataDir);
  const opened = await openDatabase(opts);
  return new ControlStore({ db: opened.db, kind: opened.kind });
}

/**
 * The key file is gone but servers' webhook secrets (and source credentials) were sealed with it:
 * a new key would silently make every one unreadable, so refuse and say how to recover.
 */
async function refuseNewKeyOverSecrets(dataDir: string, store: ControlStore): Promise<void> {
  const file = join(dataDir, 'secret.key');
  try {
    await stat(file);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const servers = await store.listServers();
  if (servers.length === 0) return;
  throw new SvcError(
    'USAGE',
    `the control key ${file} is missing, but ${servers.length} registered server(s) have webhook secrets sealed with it (${servers
      .slice(0, 5)
      .map((s) => s.id)
      .join(
        ', ',
      )}${servers.length > 5 ? ', …' : ''}); svc will not make a new key, which would make them unreadable. Restore secret.key from a backup of the data directory, or give the key as SVC_CONTROL_KEY`,
    { place: { file } },
  );
}

export async function startControl(opts: StartControlOptions): Promise<RunningControl> {
  const dataDir = resolve(opts.cwd ?? process.cwd(), opts.dataDir);
  const logger = opts.logger ?? jsonLineLogger({});
  const metrics = opts.metrics === false ? undefined : createControlMetrics();
  const log = (event: string, fields: Record<string, unknown>) => {
    if (metrics && event === 'import_queued') metrics.job('queued');
    if (metrics && event === 'import_finished') metrics.job(String(fields.status));
    logger.log('info', event, fields);
  };
  if (opts.gitToken && !opts.gitTokenHosts?.length) {
    logger.log('warn', 'git_token_unused', {
      message: 'SVC_GIT_TOKEN is set but SVC_GIT_TOKEN_HOSTS is not: the token is sent to no host',
    });
  }
  // The database, the key, the caches and the jobs' work trees: the service's alone.
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  await chmod(dataDir, 0o700);
  const store = await openControlStore({
    dataDir,
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
  });
  await ensureControlDataDir(dataDir);
  let secrets: ReturnType<typeof secretBox>;
  try {
    if (!opts.controlKey?.trim()) await refuseNewKeyOverSecrets(dataDir, store);
    secrets = secretBox(await loadControlKey(dataDir, opts.controlKey));
  } catch (error) {
    await store.close();
    throw error;
  }
  const policy =
    opts.addressPolicy ??
    addressPolicy({
      allowPrivate: opts.allowPrivateAddresses === true,
      allowHint: 'SVC_CONTROL_ALLOW_PRIVATE=1',
    });
  const repository = repositoryCache(dataDir, opts, policy);
  const snapshots = new PublishedSnapshots({ repository, refreshMs: opts.headRefreshMs ?? 5000 });
  const signingKey = await loadSigningKey(dataDir).catch(async (error) => {
    await store.close();
    throw error;
  });
  const worker =
    opts.worker === false
      ? undefined
      : createImportWorker({
          store,
          repository,
          workRoot: join(dataDir, 'work'),
          secrets,
          sourceCacheDir: join(dataDir, 'source-cache'),
          policy,
          ...(opts.leaseMs !== undefined ? { leaseMs: opts.leaseMs } : {}),
          ...(opts.workerPollMs !== undefined ? { pollMs: opts.workerPollMs } : {}),
          ...(opts.keepJobs !== undefined ? { keepJobs: opts.keepJobs } : {}),
          onFinished: (serverId) => snapshots.invalidate(serverId),
          log,
        });
  const app = createControlApp({
    store,
    snapshots,
    secrets,
    signingKey,
    repository,
    cwd: opts.cwd ?? process.cwd(),
    onEnqueued: () => worker?.wake(),
    log,
    ...(opts.sessionTtlMs !== undefined ? { sessionTtlMs: opts.sessionTtlMs } : {}),
    ...(opts.trustProxy ? { trustProxy: true } : {}),
    ...(metrics ? { metrics } : {}),
    ...(opts.metricsToken ? { metricsToken: opts.metricsToken } : {}),
    ...(opts.prometheusUrl ? { prometheusUrl: opts.prometheusUrl } : {}),
  });
  const host = opts.host ?? '127.0.0.1';
  const server = await listen(app.fetch, host, opts.port ?? 3100);
  const port = (server.address() as AddressInfo).port;
  worker?.start();
  const shownHost = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${shownHost}:${port}`,
    port,
    store,
    ...(worker ? { worker } : {}),
    close() {
      closing ??= closeGracefully(server, worker, store, opts.shutdownGraceMs ?? 5000);
      return closing;
    },
  };
}

/**
 * One opened repository per registered location, shared by the app and the worker; a failed
 * open is forgotten, so the next use tries again.
 */
function repositoryCache(
  dataDir: string,
  opts: StartControlOptions,
  policy: AddressPolicy,
): (server: { repository: string }) => Promise<GitRepository> {
  const repos = new Map<string, Promise<GitRepository>>();
  return (server) => {
    let repo = repos.get(server.repository);
    if (!repo) {
      const key = server.repository;
      repo = openRepository(key, {
        cacheDir: join(dataDir, 'git-cache'),
        ...(opts.gitToken ? { gitToken: opts.gitToken } : {}),
        ...(opts.gitTokenHosts ? { gitTokenHosts: opts.gitTokenHosts } : {}),
        policy,
        ...(opts.maxFetchBytes !== undefined ? { maxFetchBytes: opts.maxFetchBytes } : {}),
      }).then((opened) => ({
        ...opened,
        // Discarded: opened afresh (and its cache made again) the next time.
        async discard() {
          repos.delete(key);
          await opened.discard();
        },
      }));
      repo.catch(() => repos.delete(server.repository));
      repos.set(server.repository, repo);
    }
    return repo;
  };
}

/** @hono/node-server on host:port; a port that cannot be had is a USAGE error naming SVC_CONTROL_PORT. */
async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  host: string,
  port: number,
): Promise<ServerType> {
  const server = serve({ fetch, port, hostname: host });
  await new Promise<void>((resolveListen, reject) => {
    if (server.listening) return resolveListen();
    server.once('listening', () => resolveListen());
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SvcError('USAGE', `cannot listen on ${host}:${port}: ${error.code ?? error.message}`, {
          place: { field: 'SVC_CONTROL_PORT' },
          cause: error,
        }),
      ),
    );
  });
  return server;
}

/**
 * Graceful (SIGTERM): stop accepting connections, let the worker finish the job it holds
 * (import-worker.ts stop() waits for its loop; a job it never finishes, e.g. the process is
 * killed, stays leased and is claimed again once the lease expires), let requests in flight
 * answer (bounded by graceMs), then close the database.
 */
async function closeGracefully(
  server: ServerType,
  worker: ImportWorker | undefined,
  store: ControlStore,
  graceMs: number,
): Promise<void> {
  const http = server as unknown as {
    closeIdleConnections?(): void;
    closeAllConnections?(): void;
  };
  const closed = new Promise<void>((r) => server.close(() => r()));
  http.closeIdleConnections?.();
  await worker?.stop();
  // Connections whose request ended while the worker stopped are idle now.
  http.closeIdleConnections?.();
  const force = setTimeout(() => http.closeAllConnections?.(), graceMs);
  force.unref();
  await closed;
  clearTimeout(force);
  await store.close();
}
