/**
 * Starts the control service: opens the database (embedded or PostgreSQL) and runs its
 * migrations, loads the key that seals webhook secrets, listens with @hono/node-server and
 * starts the import worker. The only place of the service that listens or reads the disk layout.
 */
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { serve } from '@hono/node-server';
import { jsonLineLogger, type Logger } from '../runtime/logger.js';
import { createControlApp } from './control-app.js';
import { ensureControlDataDir } from './data-dir.js';
import { type GitRepository, openRepository } from './git/git-repository.js';
import { createImportWorker, type ImportWorker } from './import-worker.js';
import { PublishedSnapshots } from './published-snapshot.js';
import { loadControlKey, secretBox } from './secret-box.js';
import { ControlStore } from './store/control-store.js';
import { openDatabase } from './store/open-database.js';
import { SvcError } from '../core/svc-error.js';

export interface StartControlOptions {
  port?: number;
  host?: string;
  dataDir: string;
  databaseUrl?: string;
  /** SVC_CONTROL_KEY (base64, 32 bytes); else `<data>/secret.key`. */
  controlKey?: string;
  /** SVC_GIT_TOKEN: credential for https git remotes. */
  gitToken?: string;
  cwd?: string;
  /** How long a branch head is trusted before it is looked up again (default 5 s). */
  headRefreshMs?: number;
  /** Worker: how often it looks for jobs queued elsewhere (default 1 s), and the job lease (default 60 s). */
  workerPollMs?: number;
  leaseMs?: number;
  /** Finished import jobs kept per server (SVC_CONTROL_KEEP_JOBS, default 200). */
  keepJobs?: number;
  /** false: serve the API only (no import worker in this process). */
  worker?: boolean;
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

export async function startControl(opts: StartControlOptions): Promise<RunningControl> {
  const dataDir = resolve(opts.cwd ?? process.cwd(), opts.dataDir);
  const logger = opts.logger ?? jsonLineLogger({});
  const log = (event: string, fields: Record<string, unknown>) => logger.log('info', event, fields);
  const store = await openControlStore({
    dataDir,
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
  });
  await ensureControlDataDir(dataDir);
  const secrets = secretBox(await loadControlKey(dataDir, opts.controlKey));
  const repos = new Map<string, Promise<GitRepository>>();
  const repository = (server: { repository: string }): Promise<GitRepository> => {
    let repo = repos.get(server.repository);
    if (!repo) {
      repo = openRepository(server.repository, {
        cacheDir: join(dataDir, 'git-cache'),
        ...(opts.gitToken ? { gitToken: opts.gitToken } : {}),
      });
      repo.catch(() => repos.delete(server.repository));
      repos.set(server.repository, repo);
    }
    return repo;
  };
  const snapshots = new PublishedSnapshots({ repository, refreshMs: opts.headRefreshMs ?? 5000 });
  const worker =
    opts.worker === false
      ? undefined
      : createImportWorker({
          store,
          repository,
          workRoot: join(dataDir, 'work'),
          secrets,
          sourceCacheDir: join(dataDir, 'source-cache'),
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
    repository,
    cwd: opts.cwd ?? process.cwd(),
    onEnqueued: () => worker?.wake(),
    log,
  });
  const host = opts.host ?? '127.0.0.1';
  const server = serve({ fetch: app.fetch, port: opts.port ?? 3100, hostname: host });
  await new Promise<void>((resolveListen, reject) => {
    if (server.listening) return resolveListen();
    server.once('listening', () => resolveListen());
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SvcError(
          'USAGE',
          `cannot listen on ${host}:${opts.port ?? 3100}: ${error.code ?? error.message}`,
          {
            place: { field: 'SVC_CONTROL_PORT' },
            cause: error,
          },
        ),
      ),
    );
  });
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
      closing ??= (async () => {
        await worker?.stop();
        await new Promise<void>((r) => {
          if ('closeAllConnections' in server)
            (server as { closeAllConnections(): void }).closeAllConnections();
          server.close(() => r());
        });
        await store.close();
      })();
      return closing;
    },
  };
}
