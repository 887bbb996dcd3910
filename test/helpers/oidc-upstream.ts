/**
 * oidc-provider (a certified OpenID provider) on 127.0.0.1 as the upstream API's authorization
 * server, and the echo upstream as the API: its `/api/echo/items/me` route introspects the bearer it
 * receives at the provider and answers as that person, or 401. Short access-token lifetimes and
 * grant revocation are under the test's control. Its login and consent pages are oidc-provider's
 * own development interactions (any login name, any password).
 */
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import Provider from 'oidc-provider';
import { type EchoUpstream, startEchoUpstream } from '../../runtime/testing/index.js';

export const UPSTREAM_CLIENT_ID = 'svc-runtime';
export const UPSTREAM_CLIENT_SECRET = 'upstream-client-secret-5e6f7a8b9c';
export const API_AUDIENCE = 'https://echo-api.test';
export const API_SCOPE = 'items:read';

export interface OidcUpstream {
  issuer: string;
  api: EchoUpstream;
  /** Every bearer token the API received. */
  bearers: string[];
  /** Lifetime of the access tokens issued from now on (seconds). */
  setAccessTokenTtl(seconds: number): void;
  /** Revokes every grant of this person (their tokens stop working, refresh fails). */
  revoke(accountId: string): Promise<void>;
  close(): Promise<void>;
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startOidcUpstream(...redirectUris: string[]): Promise<OidcUpstream> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  let accessTtl = 600;
  const grants = new Map<string, Set<string>>();
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: UPSTREAM_CLIENT_ID,
        client_secret: UPSTREAM_CLIENT_SECRET,
        redirect_uris: redirectUris,
        grant_types: ['authorization_code', 'refresh_token'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    cookies: { keys: ['oidc-upstream-test-cookie-key'] },
    scopes: ['openid', 'offline_access', API_SCOPE],
    features: {
      devInteractions: { enabled: true },
      introspection: { enabled: true },
      revocation: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => API_AUDIENCE,
        useGrantedResource: () => true,
        getResourceServerInfo: () => ({
          scope: API_SCOPE,
          audience: API_AUDIENCE,
          accessTokenFormat: 'opaque',
        }),
      },
    },
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    ttl: { AccessToken: () => accessTtl },
    findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ sub }) }),
  });
  provider.on('grant.success', (ctx) => {
    const grantId =
      ctx.oidc.entities.Grant?.jti ?? (ctx.oidc.entities.AuthorizationCode as { grantId?: string })?.grantId;
    const account =
      ctx.oidc.entities.Account?.accountId ??
      (ctx.oidc.entities.AuthorizationCode as { accountId?: string })?.accountId;
    if (grantId && account) {
      const set = grants.get(account) ?? new Set<string>();
      set.add(grantId);
      grants.set(account, set);
    }
  });
  const server = provider.listen(port, '127.0.0.1');
  await new Promise<void>((resolve) =>
    server.listening ? resolve() : server.once('listening', () => resolve()),
  );

  const bearers: string[] = [];
  const api = await startEchoUpstream({
    route(req, res, _body, url) {
      if (url.pathname !== '/api/echo/items/me') return false;
      const auth = String(req.headers.authorization ?? '');
      const token = auth.startsWith('Bearer ') ? auth.slice(7) : '';
      bearers.push(token);
      void (async () => {
        const answer = await fetch(`${issuer}/token/introspection`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            authorization: `Basic ${Buffer.from(`${UPSTREAM_CLIENT_ID}:${UPSTREAM_CLIENT_SECRET}`).toString('base64')}`,
          },
          body: new URLSearchParams({ token }),
        });
        const info = (await answer.json()) as {
          active?: boolean;
          sub?: string;
          scope?: string;
          aud?: unknown;
        };
        if (!info.active) {
          res.writeHead(401, {
            'content-type': 'application/json',
            'www-authenticate': 'Bearer error="invalid_token"',
          });
          res.end('{"error":"invalid_token"}');
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ sub: info.sub, scope: info.scope }));
      })();
      return true;
    },
  });

  return {
    issuer,
    api,
    bearers,
    setAccessTokenTtl(seconds) {
      accessTtl = seconds;
    },
    async revoke(accountId) {
      for (const grantId of grants.get(accountId) ?? []) {
        const grant = await provider.Grant.find(grantId);
        await grant?.destroy();
      }
    },
    async close() {
      await api.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
