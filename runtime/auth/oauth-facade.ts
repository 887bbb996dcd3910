/**
 * The runtime as the MCP server's authorization server facade for user_oauth folders (MCP
 * authorization, 2025-11-25 and 2026-07-28; docs/oauth.md says what is checked against which
 * RFC). The person signs in at the upstream provider; the MCP client gets svc's own tokens,
 * sealed (seal.ts) around the upstream ones and bound to client, resource and expiry. No
 * database: codes, tokens and registrations carry their own state.
 */
import {
  buildOAuthProtectedResourceMetadata,
  getOAuthProtectedResourceMetadataUrl,
  type OAuthMetadata,
} from '@modelcontextprotocol/server';
import type { Hono } from 'hono';
import { calculatePKCECodeChallenge } from 'oauth4webapi';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { LoadedConfig } from '../loaded-config.js';
import type { Logger } from '../logger.js';
import { oauthClientOf } from './boot-checks.js';
import { type ClientRegistry, createClientRegistry } from './clients.js';
import type { Sealer } from './seal.js';
import {
  discoverProvider,
  exchangeUpstreamCode,
  refreshUpstream,
  type UpstreamProvider,
  type UpstreamTokens,
  upstreamAuthorizeUrl,
} from './upstream-oauth.js';

const CODE_TTL_S = 60;
const TXN_TTL_S = 600;
const ACCESS_TTL_MAX_S = 3600;
const REFRESH_TTL_S = 30 * 24 * 3600;
/** Access tokens kept opened (oldest dropped first): one per active client is plenty. */
const OPENED_CACHE_MAX = 1000;
const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** The JSON endpoints answer browser-based MCP clients too: no cookie is involved, so any origin. */
const ANY_ORIGIN = { 'access-control-allow-origin': '*' };
const PREFLIGHT = {
  ...ANY_ORIGIN,
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version',
  'access-control-max-age': '600',
};

export interface OAuthFacade {
  issuer: string;
  /** The resource (RFC 8707) served at /mcp (pathId undefined) or /mcp/<serverId>. */
  resourceFor(pathId: string | undefined): string;
  metadataUrlFor(pathId: string | undefined): string;
  /** The claims of a valid access token for `resource`, or undefined. */
  openAccessToken(
    token: string,
  ): Promise<{ clientId: string; resource: string; userToken: string; exp: number } | undefined>;
  mount(app: Hono): void;
}

export interface OAuthFacadeOptions {
  env: RuntimeEnv & { publicUrl: string; oauthKey: Uint8Array };
  store: ConfigStore;
  sealer: Sealer;
  logger: Logger;
  now: () => number;
  /** For the upstream token endpoint (tests route it); client metadata documents use the global fetch. */
  fetch?: typeof fetch;
}

function oauthError(status: number, error: string, description: string): Response {
  return new Response(JSON.stringify({ error, error_description: description }), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...ANY_ORIGIN },
  });
}

function page(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...NO_STORE },
  });
}

function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/#.*$/, '').replace(/\/$/, '');
  return norm(a) === norm(b);
}

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

export function createOAuthFacade(opts: OAuthFacadeOptions): OAuthFacade {
  const { env, store, sealer, logger } = opts;
  const issuer = env.publicUrl;
  const upstreamFetch = opts.fetch ?? fetch;
  const seconds = () => Math.floor(opts.now() / 1000);
  const callbackUrl = `${issuer}/oauth/callback`;
  const clients: ClientRegistry = createClientRegistry({
    sealer,
    allowLoopback: env.oauthAllowLoopback === true,
    fetch,
    now: opts.now,
  });
  const opened = new Map<string, { clientId: string; resource: string; userToken: string; exp: number }>();
  // Codes are sealed, so a replica cannot know another used one; within a replica each is single-use.
  const usedCodes = new Map<string, number>();

  const resourceFor = (pathId: string | undefined) =>
    pathId === undefined ? `${issuer}/mcp` : `${issuer}/mcp/${encodeURIComponent(pathId)}`;
  const resources = () => [resourceFor(undefined), resourceFor(store.current().serverId)];

  // MCP_AUTH=oauth: the provider is the OpenID provider MCP_OAUTH_ISSUER names, discovered once.
  let discovered: Promise<UpstreamProvider | undefined> | undefined;
  const fromIssuer = (): Promise<UpstreamProvider | undefined> => {
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

  /** The provider people sign in at: the user_oauth folder's, or with MCP_AUTH=oauth the OpenID provider. */
  const provider = async (): Promise<UpstreamProvider | undefined> => {
    const loaded = store.current();
    const folder = loaded.folder;
    const block = folder.config.oauth;
    if (folder.config.auth.mode === 'user_oauth') {
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
    return env.mcpAuth === 'oauth' ? fromIssuer() : undefined;
  };

  const metadata = (scopes: readonly string[]): OAuthMetadata =>
    ({
      issuer,
      authorization_endpoint: `${issuer}/oauth/authorize`,
      token_endpoint: `${issuer}/oauth/token`,
      registration_endpoint: `${issuer}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: [...scopes],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true,
    }) as OAuthMetadata;

  const resourceMetadata = (resource: string, scopes: readonly string[]) =>
    buildOAuthProtectedResourceMetadata({
      oauthMetadata: metadata(scopes),
      resourceServerUrl: new URL(resource),
      scopesSupported: [...scopes],
      resourceName: store.current().serverInfo.title ?? store.current().serverId,
      dangerouslyAllowInsecureIssuerUrl: issuer.startsWith('http:'),
    });

  async function issueTokens(clientId: string, resource: string, up: UpstreamTokens): Promise<Response> {
    const now = seconds();
    const ttl = Math.max(1, Math.min(ACCESS_TTL_MAX_S, (up.expiresAt ?? now + ACCESS_TTL_MAX_S) - now));
    const accessToken = await sealer.seal('at', { cid: clientId, aud: resource, ut: up.accessToken }, ttl);
    const refreshToken = up.refreshToken
      ? await sealer.seal(
          'rt',
          { cid: clientId, aud: resource, urt: up.refreshToken, sc: up.scope },
          REFRESH_TTL_S,
        )
      : undefined;
    return new Response(
      JSON.stringify({
        access_token: accessToken,
        token_type: 'Bearer',
        expires_in: ttl,
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(up.scope ? { scope: up.scope } : {}),
      }),
      { status: 200, headers: { 'content-type': 'application/json', ...NO_STORE, ...ANY_ORIGIN } },
    );
  }

  function redirectBack(redirectUri: string, params: Record<string, string | undefined>): Response {
    const url = new URL(redirectUri);
    for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
    url.searchParams.set('iss', issuer);
    return new Response(null, { status: 302, headers: { location: url.href, ...NO_STORE } });
  }

  async function authorize(url: URL): Promise<Response> {
    const q = url.searchParams;
    const up = await provider();
    if (!up)
      return page(
        503,
        'This server has no sign-in configured (user_oauth with an oauth block and its client credentials).',
      );
    const clientId = q.get('client_id') ?? '';
    const client = clientId ? await clients.resolve(clientId) : undefined;
    if (!client)
      return page(
        400,
        'Unknown client: client_id is neither a client metadata document URL nor a client registered here.',
      );
    const asked = q.get('redirect_uri');
    const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (!redirectUri || !client.redirectUris.includes(redirectUri))
      return page(400, "redirect_uri is not one of the client's registered redirect URIs.");
    const state = q.get('state') ?? undefined;
    const fail = (error: string, description: string) =>
      redirectBack(redirectUri, { error, error_description: description, state });
    if (q.get('response_type') !== 'code')
      return fail('unsupported_response_type', 'only response_type=code');
    const challenge = q.get('code_challenge');
    if (!challenge || q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
      return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required');
    const asked_resource = q.get('resource');
    const resource = asked_resource ?? resourceFor(undefined);
    const match = resources().find((r) => sameResource(r, resource));
    if (!match) return fail('invalid_target', 'resource is not an MCP endpoint of this server');
    const { url: upstreamUrl, verifier } = await upstreamAuthorizeUrl(up, callbackUrl, '', up.scopes);
    const txn = await sealer.seal(
      'txn',
      { cid: client.clientId, ru: redirectUri, cc: challenge, st: state, res: match, uv: verifier },
      TXN_TTL_S,
    );
    const target = new URL(upstreamUrl);
    target.searchParams.set('state', txn);
    return new Response(null, { status: 302, headers: { location: target.href, ...NO_STORE } });
  }

  async function callback(url: URL): Promise<Response> {
    const txn = await sealer.open('txn', url.searchParams.get('state') ?? '');
    if (!txn)
      return page(400, 'This sign-in has expired or was not started here: start again from your MCP client.');
    const redirectUri = String(txn.ru);
    const state = typeof txn.st === 'string' ? txn.st : undefined;
    const upstreamError = url.searchParams.get('error');
    if (upstreamError) {
      logger.log('warn', 'oauth_upstream_denied', { error: upstreamError.slice(0, 64) });
      return redirectBack(redirectUri, {
        error: upstreamError === 'access_denied' ? 'access_denied' : 'server_error',
        error_description: 'the API provider did not grant access',
        state,
      });
    }
    const up = await provider();
    if (!up) return page(503, 'This server has no sign-in configured.');
    let tokens: UpstreamTokens;
    try {
      tokens = await exchangeUpstreamCode(up, url, callbackUrl, String(txn.uv), upstreamFetch, seconds());
    } catch (error) {
      const e = error as { error?: unknown; code?: unknown };
      logger.log('warn', 'oauth_upstream_exchange_failed', {
        reason:
          typeof e.error === 'string' ? e.error : typeof e.code === 'string' ? e.code : 'unexpected answer',
      });
      return redirectBack(redirectUri, {
        error: 'server_error',
        error_description: 'the API provider refused the sign-in',
        state,
      });
    }
    const code = await sealer.seal(
      'code',
      {
        cid: txn.cid,
        ru: redirectUri,
        cc: txn.cc,
        res: txn.res,
        ut: tokens.accessToken,
        urt: tokens.refreshToken,
        uexp: tokens.expiresAt,
        sc: tokens.scope,
      },
      CODE_TTL_S,
    );
    return redirectBack(redirectUri, { code, state });
  }

  async function token(request: Request): Promise<Response> {
    const type = request.headers.get('content-type') ?? '';
    if (!type.startsWith('application/x-www-form-urlencoded'))
      return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
    const text = await request.text();
    if (text.length > 64 * 1024) return oauthError(400, 'invalid_request', 'body too large');
    const form = new URLSearchParams(text);
    const clientId = form.get('client_id') ?? '';
    const resource = form.get('resource');
    const grant = form.get('grant_type');
    if (grant === 'authorization_code') {
      const raw = form.get('code') ?? '';
      const code = await sealer.open('code', raw);
      if (!code) return oauthError(400, 'invalid_grant', 'the code is unknown or expired');
      if (code.cid !== clientId)
        return oauthError(400, 'invalid_grant', 'the code was issued to another client');
      const redirectUri = form.get('redirect_uri');
      if (redirectUri !== null && redirectUri !== code.ru)
        return oauthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
      const verifier = form.get('code_verifier') ?? '';
      if (
        !/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) ||
        (await calculatePKCECodeChallenge(verifier)) !== code.cc
      )
        return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
      if (resource !== null && !sameResource(resource, String(code.res)))
        return oauthError(400, 'invalid_target', 'resource differs from the authorization request');
      const now = seconds();
      for (const [k, exp] of usedCodes) if (exp < now) usedCodes.delete(k);
      if (usedCodes.has(raw)) return oauthError(400, 'invalid_grant', 'the code was already used');
      usedCodes.set(raw, now + CODE_TTL_S + 5);
      return issueTokens(clientId, String(code.res), {
        accessToken: String(code.ut),
        ...(typeof code.urt === 'string' ? { refreshToken: code.urt } : {}),
        ...(typeof code.uexp === 'number' ? { expiresAt: code.uexp } : {}),
        ...(typeof code.sc === 'string' ? { scope: code.sc } : {}),
      });
    }
    if (grant === 'refresh_token') {
      const refresh = await sealer.open('rt', form.get('refresh_token') ?? '');
      if (!refresh) return oauthError(400, 'invalid_grant', 'the refresh token is unknown or expired');
      if (refresh.cid !== clientId)
        return oauthError(400, 'invalid_grant', 'the refresh token was issued to another client');
      if (resource !== null && !sameResource(resource, String(refresh.aud)))
        return oauthError(400, 'invalid_target', 'resource differs from the one the grant is for');
      const up = await provider();
      if (!up) return oauthError(400, 'invalid_grant', 'this server has no sign-in configured any more');
      const outcome = await refreshUpstream(up, String(refresh.urt), upstreamFetch, seconds());
      if (!outcome.ok) {
        logger.log('warn', 'oauth_upstream_refresh_failed', {
          revoked: outcome.revoked,
          reason: outcome.reason,
        });
        return outcome.revoked
          ? oauthError(400, 'invalid_grant', 'the API provider no longer honours this grant: sign in again')
          : oauthError(503, 'temporarily_unavailable', 'the API provider could not refresh the grant');
      }
      const tokens = outcome.tokens;
      return issueTokens(clientId, String(refresh.aud), {
        ...tokens,
        ...(tokens.scope ? {} : typeof refresh.sc === 'string' ? { scope: refresh.sc } : {}),
      });
    }
    return oauthError(400, 'unsupported_grant_type', 'authorization_code and refresh_token only');
  }

  return {
    issuer,
    resourceFor,
    metadataUrlFor: (pathId) => getOAuthProtectedResourceMetadataUrl(new URL(resourceFor(pathId))),
    async openAccessToken(sealed) {
      // A client presents the same token on every call until it expires: opened once, then looked up.
      const hit = opened.get(sealed);
      if (hit) {
        if (hit.exp > seconds()) return hit;
        opened.delete(sealed);
        return undefined;
      }
      const claims = await sealer.open('at', sealed);
      if (!claims || typeof claims.ut !== 'string' || typeof claims.aud !== 'string') return undefined;
      const token = {
        clientId: String(claims.cid),
        resource: claims.aud,
        userToken: claims.ut,
        exp: Number(claims.exp),
      };
      if (opened.size >= OPENED_CACHE_MAX) opened.delete(opened.keys().next().value!);
      opened.set(sealed, token);
      return token;
    },
    mount(app) {
      const prm = (pathId: string | undefined) => async () => {
        const up = await provider();
        if (!up) return page(404, 'Not Found');
        return Response.json(resourceMetadata(resourceFor(pathId), up.scopes), {
          headers: { 'access-control-allow-origin': '*' },
        });
      };
      app.get('/.well-known/oauth-protected-resource', prm(undefined));
      app.get('/.well-known/oauth-protected-resource/mcp', prm(undefined));
      app.get('/.well-known/oauth-protected-resource/mcp/:serverId', (c) => prm(c.req.param('serverId'))());
      app.get('/.well-known/oauth-authorization-server', async () => {
        const up = await provider();
        return up
          ? Response.json(metadata(up.scopes), { headers: { 'access-control-allow-origin': '*' } })
          : page(404, 'Not Found');
      });
      app.get('/oauth/authorize', (c) => authorize(new URL(c.req.url)));
      app.get('/oauth/callback', (c) => callback(new URL(c.req.url)));
      app.post('/oauth/token', (c) => token(c.req.raw));
      for (const path of [
        '/oauth/token',
        '/oauth/register',
        '/.well-known/oauth-authorization-server',
        '/.well-known/oauth-protected-resource/*',
        '/.well-known/oauth-protected-resource',
      ])
        app.options(path, () => new Response(null, { status: 204, headers: PREFLIGHT }));
      app.post('/oauth/register', async (c) => {
        if (!(await provider())) return page(404, 'Not Found');
        let body: unknown;
        try {
          body = JSON.parse(await c.req.text());
        } catch {
          return oauthError(400, 'invalid_client_metadata', 'the body must be JSON');
        }
        const outcome = await clients.register(body);
        if (!outcome.ok) return oauthError(400, 'invalid_redirect_uri', outcome.error);
        return new Response(JSON.stringify(outcome.client), {
          status: 201,
          headers: { 'content-type': 'application/json', ...NO_STORE, ...ANY_ORIGIN },
        });
      });
    },
  };
}
