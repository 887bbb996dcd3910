/**
 * --watch: reloads a served folder when its files change, debounced. Only a whole version is
 * served: while svc writes the folder (its lock or journal is beside it), it looks again shortly;
 * a write that never ends (its writer died) is finished by the ordinary read once a swap's worth
 * of waiting has passed. A folder the runtime could not boot with is refused and the last good
 * config keeps serving. With several folders, a reload may not change the server id (its path).
 */
import { watch as fsWatch } from 'node:fs';
import { SvcError } from '../../core/svc-error.js';
import { readFolderBetweenWrites } from '../../folder/read-between-writes.js';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import { folderCommit } from '../folder-commit.js';
import { loadFolderDir, modelFromFiles } from '../load-source.js';
import type { Logger } from '../logger.js';
import { checkBootConfig } from './boot-checks.js';

/** How long --watch waits for a write of the folder to end before reading it anyway (as readers do). */
const WRITE_WAIT_MS = 30_000;

export interface WatchFolderOptions {
  dir: string;
  store: ConfigStore;
  env: RuntimeEnv;
  logger: Logger;
  debounceMs?: number;
  /** Several folders: the id the folder is served under, which a reload may not change (also logged). */
  serverId?: string;
}

export interface FolderWatch {
  close(): void;
}

/** Reads the folder once, or undefined while a write of it is under way (for up to WRITE_WAIT_MS). */
function reloader(o: WatchFolderOptions, again: () => void): () => Promise<void> {
  const { dir, store, logger } = o;
  const tag = o.serverId !== undefined ? { serverId: o.serverId } : {};
  /** Since when a write has kept the folder from being read (undefined: none is under way). */
  let waitingSince: number | undefined;
  return async () => {
    try {
      const files = await readFolderBetweenWrites(dir);
      if (files === undefined) {
        if (waitingSince === undefined) {
          waitingSince = Date.now();
          logger.log('info', 'config_reload_waiting', {
            ...tag,
            reason: 'a write of the folder is under way',
          });
        }
        if (Date.now() - waitingSince < WRITE_WAIT_MS) return again();
      }
      waitingSince = undefined;
      const next = files ? { folder: modelFromFiles(files, `the folder ${dir}`) } : await loadFolderDir(dir);
      checkBootConfig(next.folder, o.env, { log() {} });
      if (o.serverId !== undefined && next.folder.config.server.id !== o.serverId)
        throw new SvcError(
          'USAGE',
          'the server id changed: restart svc serve to serve it under its new path',
        );
      const commit = await folderCommit(dir);
      store.swap(next.folder, commit ? { commit } : {});
      logger.log('info', 'config_reloaded', {
        ...tag,
        version: store.version(),
        tools: store.current().toolList.length,
      });
    } catch (error) {
      const message = error instanceof SvcError ? error.describe() : String(error);
      logger.log('warn', 'config_reload_refused', { ...tag, message, keptVersion: store.version() });
    }
  };
}

export function watchFolder(o: WatchFolderOptions): FolderWatch {
  const debounceMs = o.debounceMs ?? 150;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const schedule = (ms: number) => {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(() => void reload(), ms);
  };
  const reload = reloader(o, () => schedule(Math.max(debounceMs, 20)));
  const watcher = fsWatch(o.dir, { recursive: true }, (_event, file) => {
    const name = String(file ?? '');
    if (name.startsWith('.svc') || name.startsWith('.git')) return;
    schedule(debounceMs);
  });
  watcher.on('error', (error) => o.logger.log('warn', 'watch_failed', { message: error.message }));
  o.logger.log('info', 'watching', { folder: o.dir });
  return {
    close() {
      closed = true;
      watcher.close();
      clearTimeout(timer);
    },
  };
}
