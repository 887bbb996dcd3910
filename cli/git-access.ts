import type { Source } from '../schemas/types.js';
import type { CliIo } from '../core/command.js';
import { givenGitCacheDir } from '../generator/sources/git-cache-dir.js';

/**
 * What git and raw-URL sources need from the environment: the token, the cache directory, and
 * for a source that names a connection, the connection store in the user's config directory
 * (loaded only then, so that other imports do not load the GitHub and GitLab clients).
 */
export function gitAccess(io: CliIo): {
  token?: string;
  cacheDir?: string;
  credentials: (
    source: Extract<Source, { kind: 'git' }>,
  ) => Promise<{ url: string; username: string; token: string }>;
} {
  const token = io.env.SVC_GIT_TOKEN;
  const cacheDir = givenGitCacheDir(io.env);
  return {
    ...(token ? { token } : {}),
    ...(cacheDir ? { cacheDir } : {}),
    async credentials(source) {
      const { ConnectionStore, svcConfigDir } = await import(
        '../generator/sources/accounts/git-connections.js'
      );
      const { connectionCredentials } = await import('../generator/sources/accounts/git-connection-auth.js');
      const store = await ConnectionStore.open(svcConfigDir(io.env));
      const connection = await store.get(source.connection ?? '');
      return connectionCredentials(store, connection, source.repository ?? source.project ?? '');
    },
  };
}
