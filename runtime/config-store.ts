/**
 * The config store: holds the newest LoadedConfig and swaps in a new one atomically. Served
 * configs are immutable; whoever grabbed one (a 2025-11-25 session) keeps it, while new
 * sessions and every stateless request call current() and see the newest at once.
 *
 * It is also the gate every served config passes (boot, --watch reload, sync): a folder whose
 * tools cannot work (folder/check-tools.ts, the same checks as `svc validate`) is refused with
 * an SvcError naming the file and field, and the store keeps what it had.
 */
import { type CheckToolsOptions, checkTools } from '../folder/check-tools.js';
import type { FolderModel } from '../folder/model.js';
import { compileConfig, type LoadedConfig } from './loaded-config.js';
import { folderInvalid } from '../folder/index.js';

export interface ConfigStore {
  current(): LoadedConfig;
  /** Throws (and keeps the current config) when the folder cannot be served. */
  swap(folder: FolderModel, origin?: ConfigOrigin): LoadedConfig;
  /**
   * One of the last `keep` configs (the current one included) whose digest starts with
   * `digestPrefix`: what a session opened on another replica started with.
   */
  find(digestPrefix: string): LoadedConfig | undefined;
  version(): number;
  /** Called after each swap with the new config; returns an unsubscribe function. */
  onSwap(cb: (config: LoadedConfig, previous: LoadedConfig) => void): () => void;
}

function assertServable(folder: FolderModel, cleanSchemas: CheckToolsOptions['cleanSchemas']): void {
  // Only errors gate a config, and only served tools have errors: the others are not checked.
  const { errors } = checkTools(folder, { servedOnly: true, ...(cleanSchemas ? { cleanSchemas } : {}) });
  if (errors.length > 0) throw folderInvalid(errors, 'the folder');
}

/** Where a folder came from: its git commit, when known. */
export interface ConfigOrigin {
  commit?: string;
}

export interface ConfigStoreOptions extends ConfigOrigin {
  /** Configs kept for sessions opened on them (SVC_CONFIG_VERSIONS, default 3). */
  keep?: number;
  /**
   * Schemas found clean before by `svc validate` on this machine (folder/schema-check-cache.ts):
   * not checked again. `svc serve` passes the user's cache; a runtime given none checks them all.
   */
  cleanSchemas?: CheckToolsOptions['cleanSchemas'];
  /**
   * false: the first config's digest is left to whoever asks first. startRuntime asks once it
   * listens, so that the digest (~60 ms for GitHub's 1,108 tools) is computed while the first
   * client connects rather than before the runtime listens. Default true: on the next turn of
   * the event loop, as after every swap.
   */
  warmFirstDigest?: boolean;
}

function compile(
  folder: FolderModel,
  version: number,
  origin: ConfigOrigin | undefined,
  warmDigest = true,
): LoadedConfig {
  const config = compileConfig(folder, version);
  if (origin?.commit) config.commit = origin.commit;
  // The digest (sessions, Svc-Config-Commit) is computed right after, off the boot or swap path.
  if (warmDigest) setImmediate(() => config.digest);
  return config;
}

/** Throws an SvcError (FOLDER_INVALID) when a tool of the folder cannot work. */
export function createConfigStore(folder: FolderModel, opts: ConfigStoreOptions = {}): ConfigStore {
  assertServable(folder, opts.cleanSchemas);
  const keep = Math.max(1, opts.keep ?? 3);
  let current = compile(folder, 1, opts, opts.warmFirstDigest ?? true);
  /** Newest first; current is recent[0]. */
  let recent: LoadedConfig[] = [current];
  const listeners = new Set<(config: LoadedConfig, previous: LoadedConfig) => void>();
  return {
    current: () => current,
    version: () => current.version,
    find(prefix) {
      if (prefix.length < 16) return undefined;
      return recent.find((config) => config.digest.startsWith(prefix));
    },
    swap(next, origin) {
      assertServable(next, opts.cleanSchemas);
      const previous = current;
      current = compile(next, previous.version + 1, origin);
      recent = [current, ...recent.filter((c) => c.digest !== current.digest)].slice(0, keep);
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
