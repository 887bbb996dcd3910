/**
 * The config store: holds the newest LoadedConfig and swaps in a new one atomically. Served
 * configs are immutable; whoever grabbed one (a 2025-11-25 session) keeps it, while new
 * sessions and every stateless request call current() and see the newest at once.
 */
import type { FolderModel } from '../folder/model.js';
import { compileConfig, type LoadedConfig } from './loaded-config.js';

export interface ConfigStore {
  current(): LoadedConfig;
  swap(folder: FolderModel): LoadedConfig;
  version(): number;
  /** Called after each swap with the new config; returns an unsubscribe function. */
  onSwap(cb: (config: LoadedConfig, previous: LoadedConfig) => void): () => void;
}

export function createConfigStore(folder: FolderModel): ConfigStore {
  let current = compileConfig(folder, 1);
  const listeners = new Set<(config: LoadedConfig, previous: LoadedConfig) => void>();
  return {
    current: () => current,
    version: () => current.version,
    swap(next) {
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
