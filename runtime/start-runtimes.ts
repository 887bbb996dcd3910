/**
 * Several server folders behind one port (`svc serve ./a ./b`): each folder gets its own config store and
 * app (its own sessions, tools and reloads), and requests go to the app whose server id the path names,
 * `/mcp/<serverId>` (and the OAuth metadata paths that end in it). The bare `/mcp` is ambiguous with several
 * servers: it answers 404 with the ids that are served. One process, one set of variables: every folder
 * gets the same SVC_UPSTREAM_SECRET, and SVC_SYNC_URL (which follows one server) is refused.
 */
// First: it must run before the SDK's modules are evaluated (see boot-heap.ts).
import { releaseBootHeap } from './boot-heap.js';
import { type FSWatcher, watch as fsWatch } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { SvcError } from '../core/svc-error.js';
import { createApp, type RuntimeApp } from './app.js';
import { type ConfigStore, createConfigStore } from './config-store.js';
import { loadFolderDir } from './load-source.js';
import { jsonLineLogger, redactingLogger } from './logger.js';
import { createRedactor } from './redact.js';
import { checkBootConfig, displayHost, type StartRuntimeOptions } from './start-runtime.js';
import { basicCredentials } from './upstream-request.js';

export interface StartRuntimesOptions
  extends Pick<
    StartRuntimeOptions,
    'env' | 'watch' | 'logger' | 'fetch' | 'watchDebounceMs' | 'sessionIdleMs'
  > {
  folderDirs: string[];
}

export interface ServedFolder {
  dir: string;
  serverId: string;
  /** http://host:port/mcp/<serverId> */
  url: string;
  store: ConfigStore;
}

export interface RunningRuntimes {
  port: number;
  servers: ServedFolder[];
  close(): Promise<void>;
}

/** The server id a path names: /mcp/<id>, or a metadata path ending in it. */
export function serverIdOfPath(pathname: string): string | undefined {
  const m = /(?:^|\/)mcp\/([^/]+)\/?$/.exec(pathname);
  if (!m?.[1]) return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return undefined;
  }
}

function notHere(message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }), {
    status: 404,
    headers: { 'content-type': 'application/json' },
  });
}

export async function startRuntimes(opts: StartRuntimesOptions): Promise<RunningRuntimes> {
  try {
    return await boot(opts);
  } finally {
    releaseBootHeap();
  }
}

async function boot(opts: StartRuntimesOptions): Promise<RunningRuntimes> {
  const { env } = opts;
  if (env.syncUrl) {
    throw new SvcError(
      'USAGE',
      'SVC_SYNC_URL follows one server: serve one folder with it, or several folders without it',
      { place: { field: 'SVC_SYNC_URL' } },
    );
  }
  const basicPair = env.upstreamSecret ? basicCredentials(env.upstreamSecret, env.upstreamUser) : undefined;
  const redact = createRedactor([env.upstreamSecret, basicPair, env.deployToken]);
  const logger = redactingLogger(opts.logger ?? jsonLineLogger({ redact }), redact);

  const loaded: { dir: string; store: ConfigStore }[] = [];
  const byId = new Map<string, string>();
  for (const dir of opts.folderDirs) {
    const { folder } = await loadFolderDir(dir);
    checkBootConfig(folder, env, logger);
    const id = folder.config.server.id;
    const other = byId.get(id);
    if (other !== undefined) {
      throw new SvcError('USAGE', `${other} and ${dir} have the same server id "${id}": each needs its own`, {
        place: { file: `${dir}/config.yaml`, field: 'server.id' },
      });
    }
    byId.set(id, dir);
    loaded.push({ dir, store: createConfigStore(folder) });
  }

  const apps = new Map<string, RuntimeApp>();
  const ids = () => [...apps.keys()].join(', ');
  const server = serve({
    fetch: (request: Request, nodeEnv: unknown) => {
      if (apps.size === 0) return new Response('starting', { status: 503 });
      const { pathname } = new URL(request.url);
      const id = serverIdOfPath(pathname);
      if (id !== undefined) {
        const app = apps.get(id);
        return app
          ? app.app.fetch(request, nodeEnv)
          : notHere(`No MCP server with id "${id}" here (${ids()})`);
      }
      if (pathname === '/mcp' || pathname === '/mcp/')
        return notHere(`Several MCP servers are served here: use /mcp/<serverId> (${ids()})`);
      // /healthz, /readyz and the rest: the first folder's app answers for the process.
      return apps.values().next().value!.app.fetch(request, nodeEnv);
    },
    port: env.port,
    hostname: env.host,
  });
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', () => resolve());
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new SvcError(
          error.code === 'EADDRINUSE' ? 'PORT_IN_USE' : 'USAGE',
          error.code === 'EADDRINUSE'
            ? `port ${env.port} on ${env.host} is already in use; stop what listens there or pick another port (--port or MCP_RUNTIME_PORT)`
            : `cannot listen on ${env.host}:${env.port}: ${error.code ?? error.message}`,
          { place: { field: 'MCP_RUNTIME_PORT' }, cause: error },
        ),
      ),
    );
  });
  const port = (server.address() as AddressInfo).port;
  const base = `http://${displayHost(env.host)}:${port}`;
  const servers: ServedFolder[] = [];
  const watchers: FSWatcher[] = [];
  const timers = new Set<NodeJS.Timeout>();
  for (const { dir, store } of loaded) {
    const config = store.current();
    apps.set(
      config.serverId,
      createApp({
        store,
        env,
        logger,
        listenPort: port,
        ...(opts.fetch ? { fetch: opts.fetch } : {}),
        ...(opts.sessionIdleMs !== undefined ? { sessionIdleMs: opts.sessionIdleMs } : {}),
      }),
    );
    servers.push({ dir, serverId: config.serverId, url: `${base}/mcp/${config.serverId}`, store });
    logger.log('info', 'runtime_started', {
      mcpServer: `${base}/mcp/${config.serverId}`,
      serverId: config.serverId,
      tools: config.toolList.length,
      source: dir,
    });
    if (opts.watch) {
      let timer: NodeJS.Timeout | undefined;
      const reload = async () => {
        timers.delete(timer!);
        try {
          const next = await loadFolderDir(dir);
          checkBootConfig(next.folder, env, { log() {} });
          if (next.folder.config.server.id !== config.serverId)
            throw new SvcError(
              'USAGE',
              'the server id changed: restart svc serve to serve it under its new path',
            );
          store.swap(next.folder);
          logger.log('info', 'config_reloaded', { serverId: config.serverId, version: store.version() });
        } catch (error) {
          const message = error instanceof SvcError ? error.describe() : String(error);
          logger.log('warn', 'config_reload_refused', { serverId: config.serverId, message });
        }
      };
      const watcher = fsWatch(dir, { recursive: true }, (_event, file) => {
        const name = String(file ?? '');
        if (name.startsWith('.svc') || name.startsWith('.git')) return;
        clearTimeout(timer);
        timer = setTimeout(() => void reload(), opts.watchDebounceMs ?? 150);
        timers.add(timer);
      });
      watcher.on('error', (error) => logger.log('warn', 'watch_failed', { message: error.message }));
      watchers.push(watcher);
    }
  }
  if (!env.allowedOrigins) {
    logger.log('warn', 'origins_unrestricted', {
      message:
        'MCP_ALLOWED_ORIGINS is not set: browser requests from every origin are accepted. Set it to a comma-separated list of origins to restrict them.',
    });
  }

  let closed: Promise<void> | undefined;
  return {
    port,
    servers,
    close() {
      closed ??= (async () => {
        for (const w of watchers) w.close();
        for (const t of timers) clearTimeout(t);
        const closing = new Promise<void>((resolve) => server.close(() => resolve()));
        await Promise.all([...apps.values()].map((a) => a.close()));
        (server as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        const force = setTimeout(
          () => (server as { closeAllConnections?: () => void }).closeAllConnections?.(),
          2000,
        );
        force.unref();
        await closing;
        clearTimeout(force);
        logger.log('info', 'runtime_stopped', {});
      })();
      return closed;
    },
  };
}
