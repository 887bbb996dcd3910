/**
 * The runtime as the MCP server's authorization server facade for user_oauth folders (MCP
 * authorization, 2025-11-25 and 2026-07-28; docs/oauth.md says what is checked against which
 * RFC). The person signs in at the upstream provider; the MCP client gets svc's own tokens,
 * sealed (seal.ts) around the upstream ones and bound to client, resource and expiry. No
 * database: codes, tokens and registrations carry their own state.
 *
 * One module per endpoint: oauth-metadata.ts (RFC 8414, RFC 9728), oauth-register.ts
 * (RFC 7591), oauth-authorize.ts, oauth-callback.ts, oauth-token.ts; this file wires them.
 */
import { getOAuthProtectedResourceMetadataUrl } from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';
import { accessTokenOpener, type OpenedAccessToken } from './access-tokens.js';
import { createClientRegistry } from './clients.js';
import { type FacadeContext, singleUseCodes } from './facade-context.js';
import { authorize } from './oauth-authorize.js';
import { callback } from './oauth-callback.js';
import { serveAuthorizationServerMetadata, serveResourceMetadata } from './oauth-metadata.js';
import { createProviderSource } from './oauth-provider.js';
import { register } from './oauth-register.js';
import { PREFLIGHT } from './oauth-responses.js';
import { token } from './oauth-token.js';
import type { Sealer } from './seal.js';

export { scopesOf } from './oauth-provider.js';

export interface OAuthFacade {
  issuer: string;
  /** The resource (RFC 8707) served at /mcp (pathId undefined) or /mcp/<serverId>. */
  resourceFor(pathId: string | undefined): string;
  metadataUrlFor(pathId: string | undefined): string;
  /** The claims of a valid access token for `resource`, or undefined. */
  openAccessToken(token: string): Promise<OpenedAccessToken | undefined>;
  mount(app: Hono): void;
}

export interface OAuthFacadeOptions {
  env: RuntimeEnv & { publicUrl: string; oauthKey: Uint8Array };
  store: ConfigStore;
  sealer: Sealer;
  logger: Logger;
  now: () => number;
  /** For the upstream token endpoint (tests route it); client metadata documents: client-metadata-fetch.ts. */
  fetch?: typeof fetch;
}

const CORS_PATHS = [
  '/oauth/token',
  '/oauth/register',
  '/.well-known/oauth-authorization-server',
  '/.well-known/oauth-protected-resource/*',
  '/.well-known/oauth-protected-resource',
];

function facadeContext(opts: OAuthFacadeOptions): FacadeContext {
  const { env, store, sealer, logger } = opts;
  const issuer = env.publicUrl;
  const upstreamFetch = opts.fetch ?? fetch;
  const seconds = () => Math.floor(opts.now() / 1000);
  const resourceFor = (pathId: string | undefined) =>
    pathId === undefined ? `${issuer}/mcp` : `${issuer}/mcp/${encodeURIComponent(pathId)}`;
  return {
    issuer,
    callbackUrl: `${issuer}/oauth/callback`,
    sealer,
    logger,
    seconds,
    upstreamFetch,
    provider: createProviderSource(env, store, logger, upstreamFetch),
    clients: createClientRegistry({
      sealer,
      allowLoopback: env.oauthAllowLoopback === true,
      allowPrivate: env.oauthAllowPrivate === true,
      logger,
      now: opts.now,
    }),
    resourceFor,
    resources: () => [resourceFor(undefined), resourceFor(store.current().serverId)],
    redeemCode: singleUseCodes(seconds),
    resourceName: () => store.current().serverInfo.title ?? store.current().serverId,
  };
}

/** The facade's routes on `app`. */
function mountFacade(app: Hono, ctx: FacadeContext): void {
  app.get('/.well-known/oauth-protected-resource', () => serveResourceMetadata(ctx, undefined));
  app.get('/.well-known/oauth-protected-resource/mcp', () => serveResourceMetadata(ctx, undefined));
  app.get('/.well-known/oauth-protected-resource/mcp/:serverId', (c) =>
    serveResourceMetadata(ctx, c.req.param('serverId')),
  );
  app.get('/.well-known/oauth-authorization-server', () => serveAuthorizationServerMetadata(ctx));
  app.get('/oauth/authorize', (c) => authorize(ctx, new URL(c.req.url)));
  app.get('/oauth/callback', (c) => callback(ctx, new URL(c.req.url)));
  app.post('/oauth/token', (c) => token(ctx, c.req.raw));
  for (const path of CORS_PATHS)
    app.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT }));
  app.post('/oauth/register', (c) => register(ctx, c.req.raw));
}

export function createOAuthFacade(opts: OAuthFacadeOptions): OAuthFacade {
  const ctx = facadeContext(opts);
  return {
    issuer: ctx.issuer,
    resourceFor: ctx.resourceFor,
    metadataUrlFor: (pathId) => getOAuthProtectedResourceMetadataUrl(new URL(ctx.resourceFor(pathId))),
    openAccessToken: accessTokenOpener(opts.sealer, ctx.seconds),
    mount: (app) => mountFacade(app, ctx),
  };
}
