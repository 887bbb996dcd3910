/**
 * Several server folders behind one port (`svc serve ./a ./b`): each folder gets its own config store and
 * app (its own sessions, tools, reloads and upstream credential), and requests go to the app whose server
 * id the path names, `/mcp/<serverId>` (and the OAuth metadata paths that end in it). The bare `/mcp` is
 * ambiguous with several servers: it answers 404 with the ids that are served. It runs the boot pipeline of
 * startRuntime (runtime/boot/): read env, load config, build app, listen, drain. Each folder's upstream
 * credential is its own (runtime/boot/folder-credentials.ts); SVC_SYNC_URL (which follows one server) is
 * refused.
 */
// The boot hold itself starts at the entry points (runtime/main.ts, svc serve); this only ends it.
import { releaseBootHeap } from './boot-heap.js';
import { SvcError } from '../core/svc-error.js';
import type { FolderModel } from '../folder/model.js';
import type { RuntimeApp } from './app.js';
import { checkBootConfig, warnOriginsUnrestricted } from './boot/boot-checks.js';
import { bootLogger } from './boot/boot-logger.js';
import { type AppTuning, buildApp } from './boot/build-app.js';
import {
  folderEnv,
  perFolderError,
  refuseSharedCredential,
  type Variables,
} from './boot/folder-credentials.js';
import { listen, type NodeFetch, starting } from './boot/listen.js';
import { startServices } from './boot/services.js';
import { type FolderWatch, watchFolder } from './boot/watch-folder.js';
import { type ConfigStore, createConfigStore } from './config-store.js';
import type { RuntimeEnv } from './env.js';
import { loadFolderDir } from './load-source.js';
import type { Logger } from './logger.js';
import { debounce, type StartRuntimeOptions } from './start-runtime.js';

export interface StartRuntimesOptions
  extends Pick<StartRuntimeOptions, 'env' | 'watch' | 'logger' | 'watchDebounceMs' | 'executionLogWrite'>,
    AppTuning {
  folderDirs: string[];
  /**
   * The process environment, where each folder's credential is SVC_UPSTREAM_SECRET_<SERVER_ID>
   * (and SVC_UPSTREAM_USER_<SERVER_ID>) when several folders are served.
   */
  vars?: Variables;
  /** Each folder's own .env variables, by folder directory: its SVC_UPSTREAM_SECRET / _USER are its alone. */
  folderVars?: Readonly<Record<string, Variables>>;
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

/** Requests to the app whose server id the path names; /healthz and the rest to the first folder's. */
function routeByServerId(apps: Map<string, RuntimeApp>): NodeFetch {
  const ids = () => [...apps.keys()].join(', ');
  return (request, nodeEnv) => {
    const first = apps.values().next().value;
    if (!first) return starting();
    const { pathname } = new URL(request.url);
    const id = serverIdOfPath(pathname);
    if (id !== undefined) {
      const app = apps.get(id);
      return app ? app.app.fetch(request, nodeEnv) : notHere(`No MCP server with id "${id}" here (${ids()})`);
    }
    if (pathname === '/mcp' || pathname === '/mcp/')
      return notHere(`Several MCP servers are served here: use /mcp/<serverId> (${ids()})`);
    return first.app.fetch(request, nodeEnv);
  };
}

interface LoadedFolder {
  dir: string;
  folder: FolderModel;
  serverId: string;
  /** The variables of this folder: the process's, with its own upstream credential. */
  env: RuntimeEnv;
}

/** Load config: every folder, each with its own credential; two folders may not share a server id. */
async function loadFolders(opts: StartRuntimesOptions): Promise<LoadedFolder[]> {
  const { env } = opts;
  if (env.syncUrl) {
    throw new SvcError(
      'USAGE',
      'SVC_SYNC_URL follows one server: serve one folder with it, or several folders without it',
      { place: { field: 'SVC_SYNC_URL' } },
    );
  }
  const several = opts.folderDirs.length > 1;
  if (several) refuseSharedCredential(env);
  const loaded: LoadedFolder[] = [];
  for (const dir of opts.folderDirs) {
    const { folder } = await loadFolderDir(dir, { blocking: true });
    const serverId = folder.config.server.id;
    const other = loaded.find((f) => f.serverId === serverId);
    if (other) {
      throw new SvcError(
        'USAGE',
        `${other.dir} and ${dir} have the same server id "${serverId}": each needs its own`,
        {
          place: { file: `${dir}/config.yaml`, field: 'server.id' },
        },
      );
    }
    const own = several ? folderEnv(env, serverId, opts.vars, opts.folderVars?.[dir]) : env;
    loaded.push({ dir, folder, serverId, env: own });
  }
  return loaded;
}

function checkFolders(loaded: LoadedFolder[], logger: Logger): void {
  for (const f of loaded) {
    try {
      checkBootConfig(f.folder, f.env, logger);
    } catch (error) {
      throw loaded.length > 1 ? perFolderError(error, f.serverId, f.dir) : error;
    }
  }
}

export async function startRuntimes(opts: StartRuntimesOptions): Promise<RunningRuntimes> {
  try {
    return await boot(opts);
  } finally {
    releaseBootHeap();
  }
}

/** startRuntime's pipeline, once per folder where it is per folder (store, app, --watch). */
async function boot(opts: StartRuntimesOptions): Promise<RunningRuntimes> {
  const { env } = opts;
  const loaded = await loadFolders(opts);
  const { logger, redact } = bootLogger([env, ...loaded.map((f) => f.env)], opts.logger);
  checkFolders(loaded, logger);
  const services = await startServices(env, redact, opts.executionLogWrite);
  const apps = new Map<string, RuntimeApp>();
  const listening = await listen(env, routeByServerId(apps));
  const servers: ServedFolder[] = [];
  const watches: FolderWatch[] = [];
  for (const f of loaded) {
    const store = createConfigStore(f.folder);
    apps.set(f.serverId, buildApp({ env: f.env, logger, services, tuning: opts }, store, listening.port));
    const url = `${listening.base}/mcp/${f.serverId}`;
    servers.push({ dir: f.dir, serverId: f.serverId, url, store });
    logger.log('info', 'runtime_started', {
      mcpServer: url,
      serverId: f.serverId,
      tools: store.current().toolList.length,
      source: f.dir,
    });
    if (opts.watch) {
      const debounceMs = debounce(opts.watchDebounceMs);
      watches.push(
        watchFolder({ dir: f.dir, store, env: f.env, logger, serverId: f.serverId, ...debounceMs }),
      );
    }
  }
  warnOriginsUnrestricted(env, logger);

  let closed: Promise<void> | undefined;
  return {
    port: listening.port,
    servers,
    close() {
      closed ??= (async () => {
        for (const w of watches) w.close();
        await listening.drain(() => Promise.all([...apps.values()].map((a) => a.close(env.shutdownGraceMs))));
        await services.close();
        logger.log('info', 'runtime_stopped', {});
      })();
      return closed;
    },
  };
}
