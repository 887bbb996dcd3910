/**
 * The config store: holds the newest LoadedConfig and swaps in a new one atomically. Served
 * configs are immutable; whoever grabbed one (a 2025-11-25 session) keeps it, while new
 * sessions and every stateless request call current() and see the newest at once.
 *
 * It is also the gate every served config passes (boot, --watch reload, sync): a folder whose
 * tools cannot work (folder/check-tools.ts, the same checks as `svc validate`) is refused with
 * an SvcError naming the file and field, and the store keeps what it had.
 */
import { checkTools } from '../folder/check-tools.js';
import type { FolderModel } from '../folder/model.js';
import { compileConfig, type LoadedConfig } from './loaded-config.js';
import { folderErrors } from './load-source.js';

export interface ConfigStore {
  current(): LoadedConfig;
  /** Throws (and keeps the current config) when the folder cannot be served. */
  swap(folder: FolderModel): LoadedConfig;
  version(): number;
  /** Called after each swap with the new config; returns an unsubscribe function. */
  onSwap(cb: (config: LoadedConfig, previous: LoadedConfig) => void): () => void;
}

function assertServable(folder: FolderModel): void {
  const { errors } = checkTools(folder);
  if (errors.length > 0) throw folderErrors(errors, 'the folder');
}

/** Throws an SvcError (FOLDER_INVALID) when a tool of the folder cannot work. */
export function createConfigStore(folder: FolderModel): ConfigStore {
  assertServable(folder);
  let current = compileConfig(folder, 1);
  const listeners = new Set<(config: LoadedConfig, previous: LoadedConfig) => void>();
  return {
    current: () => current,
    version: () => current.version,
    swap(next) {
      assertServable(next);
      const previous = current;
      current = compileConfig(next, previous.version + 1);
      for (const cb of [...listeners]) {
        try {
          cb(current, previous);
        } catch {
          // A failing listener must not undo or block the swap.
        }
      }
      return current;
    },
    onSwap(cb) {
      listeners.add(cb);
      return () => listeners.delete(cb);
    },
  };
}
