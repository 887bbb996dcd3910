import type { CliIo } from './command.js';

/** What git and raw-URL sources need from the environment: the token and the cache directory. */
export function gitAccess(io: CliIo): { token?: string; cacheDir?: string } {
  const token = io.env.SVC_GIT_TOKEN;
  const cacheDir = io.env.SVC_CACHE_DIR;
  return { ...(token ? { token } : {}), ...(cacheDir ? { cacheDir } : {}) };
}
