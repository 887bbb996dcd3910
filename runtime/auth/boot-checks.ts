/**
 * Boot warnings of the inbound side (contracts/oauth.md): a runtime holding a shared upstream
 * credential, listening beyond loopback with MCP_AUTH=none, lends that credential to anyone
 * who can reach it; a user_oauth folder whose facade is not configured fails closed.
 */
import type { FolderModel } from '../../folder/model.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';

export const DEFAULT_CLIENT_ID_ENV = 'SVC_OAUTH_CLIENT_ID';
export const DEFAULT_CLIENT_SECRET_ENV = 'SVC_OAUTH_CLIENT_SECRET';

export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

/** The upstream OAuth client of a user_oauth folder, from the variables its oauth block names. */
export function oauthClientOf(
  folder: FolderModel,
  env: RuntimeEnv,
): { clientId?: string; clientSecret?: string; idVar: string; secretVar: string } {
  const idVar = folder.config.oauth?.clientIdEnv ?? DEFAULT_CLIENT_ID_ENV;
  const secretVar = folder.config.oauth?.clientSecretEnv ?? DEFAULT_CLIENT_SECRET_ENV;
  const clientId = env.oauthClients?.[idVar];
  const clientSecret = env.oauthClients?.[secretVar];
  return {
    idVar,
    secretVar,
    ...(clientId ? { clientId } : {}),
    ...(clientSecret ? { clientSecret } : {}),
  };
}

/** What keeps a user_oauth folder from serving calls, or undefined when the facade can run. */
export function userOAuthGap(folder: FolderModel, env: RuntimeEnv): string | undefined {
  if (folder.config.auth.mode !== 'user_oauth') return undefined;
  if (!folder.config.oauth)
    return 'config.yaml uses auth mode user_oauth without an oauth block (authorizeUrl, tokenUrl, scopes): every tool call will be refused';
  const missing: string[] = [];
  if (!env.oauthKey) missing.push('SVC_OAUTH_KEY');
  const client = oauthClientOf(folder, env);
  if (!client.clientId) missing.push(client.idVar);
  if (!env.publicUrl) missing.push('MCP_RUNTIME_PUBLIC_URL');
  if (missing.length === 0) return undefined;
  return `config.yaml uses auth mode user_oauth but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} not set: the runtime cannot sign people in, so every tool call will be refused`;
}

export function warnInboundAuth(folder: FolderModel, env: RuntimeEnv, logger: Logger): void {
  const gap = userOAuthGap(folder, env);
  if (gap) logger.log('warn', 'user_oauth_unconfigured', { message: gap });
  const auth = folder.config.auth;
  const shared =
    (auth.mode === 'api_key' || auth.mode === 'bearer' || auth.mode === 'basic') && auth.hasAuthSecret;
  if (shared && env.mcpAuth === 'none' && !isLoopbackHost(env.host)) {
    logger.log('warn', 'mcp_unprotected', {
      message: `the runtime listens on ${env.host} with MCP_AUTH=none while it calls the API with a shared credential: anyone who reaches it calls the API as you. Set MCP_AUTH=bearer (SVC_MCP_TOKENS) or MCP_AUTH=oauth.`,
    });
  }
}
