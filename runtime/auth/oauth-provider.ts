/**
 * The provider people sign in at, read afresh for each request (a provider change in the folder
 * takes effect at once): the user_oauth folder's `oauth` block with the client credentials its
 * variables name, or with MCP_AUTH=oauth the OpenID provider MCP_OAUTH_ISSUER names, discovered
 * once (again after a failure). Undefined when the folder has no sign-in configured.
 */
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { LoadedConfig } from '../loaded-config.js';
import type { Logger } from '../logger.js';
import { oauthClientOf } from './boot-checks.js';
import { discoverProvider, type UpstreamProvider } from './upstream-oauth.js';

const scopeCache = new WeakMap<LoadedConfig, readonly string[]>();

/**
 * What the authorize request asks for: the folder's `oauth.scopes`, then every scope the served
 * tools record from their operations' `security` (Tools/*.yaml endpoint.scopes). Once per version.
 */
export function scopesOf(loaded: LoadedConfig): readonly string[] {
  let scopes = scopeCache.get(loaded);
  if (!scopes) {
    const all = new Set(loaded.folder.config.oauth?.scopes ?? []);
    for (const tool of loaded.discovery.catalog.values())
      for (const s of tool.item.tool.endpoint.scopes ?? []) all.add(s);
    scopes = [...all];
    scopeCache.set(loaded, scopes);
  }
  return scopes;
}

export type ProviderSource = () => Promise<UpstreamProvider | undefined>;

/** The user_oauth folder's provider, or undefined when its block or client id is missing. */
function folderProvider(loaded: LoadedConfig, env: RuntimeEnv): UpstreamProvider | undefined {
  const folder = loaded.folder;
  const block = folder.config.oauth;
  if (!block) return undefined;
  const client = oauthClientOf(folder, env);
  if (!client.clientId) return undefined;
  return {
    authorizeUrl: block.authorizeUrl,
    tokenUrl: block.tokenUrl,
    scopes: scopesOf(loaded),
    clientId: client.clientId,
    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
  };
}

/** MCP_AUTH=oauth: the OpenID provider MCP_OAUTH_ISSUER names, discovered once (again after a failure). */
function issuerProvider(env: RuntimeEnv, logger: Logger, upstreamFetch: typeof fetch): ProviderSource {
  let discovered: Promise<UpstreamProvider | undefined> | undefined;
  return () => {
    const issuerUrl = env.mcpOAuthIssuer;
    const clientId = env.oauthClients?.SVC_OAUTH_CLIENT_ID;
    if (!issuerUrl || !clientId) return Promise.resolve(undefined);
    discovered ??= discoverProvider(issuerUrl, upstreamFetch).then(
      (found) => ({
        ...found,
        scopes: ['openid'],
        clientId,
        ...(env.oauthClients?.SVC_OAUTH_CLIENT_SECRET
          ? { clientSecret: env.oauthClients.SVC_OAUTH_CLIENT_SECRET }
          : {}),
      }),
      (error: unknown) => {
        discovered = undefined;
        logger.log('warn', 'oauth_discovery_failed', {
          issuer: issuerUrl,
          message: String((error as Error)?.message ?? error).slice(0, 200),
        });
        return undefined;
      },
    );
    return discovered;
  };
}

export function createProviderSource(
  env: RuntimeEnv,
  store: ConfigStore,
  logger: Logger,
  upstreamFetch: typeof fetch,
): ProviderSource {
  const fromIssuer = issuerProvider(env, logger, upstreamFetch);
  return async () => {
    const loaded = store.current();
    if (loaded.folder.config.auth.mode === 'user_oauth') return folderProvider(loaded, env);
    return env.mcpAuth === 'oauth' ? fromIssuer() : undefined;
  };
}
