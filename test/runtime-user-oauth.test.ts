/**
 * user_oauth end to end, with real parts only: oidc-provider on 127.0.0.1 is the API's
 * authorization server, the echo upstream is the API (it introspects every bearer it gets at
 * oidc-provider), the MCP SDK client's own OAuth support drives the flow against the runtime's
 * facade, and headless Chromium submits oidc-provider's login and consent pages.
 * Covered: the whole flow in both eras; two people get their own upstream identities; an
 * expired upstream token is refreshed; a revoked grant leads back to authorization; a token for
 * another resource is refused; svc's token never reaches the API; no token in a log line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';
import { chromiumMissing, closeSharedChromium } from './helpers/headless-chromium.js';
import type { Era } from './helpers/mcp-client.js';
import { browserSignIn, MemoryAuthProvider, REDIRECT } from './helpers/oauth-client.js';
import {
  API_SCOPE,
  freePort,
  type OidcUpstream,
  startOidcUpstream,
  UPSTREAM_CLIENT_ID,
  UPSTREAM_CLIENT_SECRET,
} from './helpers/oidc-upstream.js';

const OAUTH_KEY = Buffer.alloc(32, 0x5a).toString('base64');

let oidc: OidcUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let publicUrl: string;
/** A second runtime that serves every request through the SDK (fastPath: false). */
let sdkRuntime: RunningRuntime;
let sdkPublicUrl: string;
const logger = memoryLogger();

function newClient(era: Era): Client {
  return new Client(
    { name: 'user-oauth', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
}

/** Connects with the SDK's OAuth support; signs `login` in through the browser when the runtime asks. */
async function connectAs(
  login: string,
  era: Era,
  provider = new MemoryAuthProvider(),
  url = runtime.url,
): Promise<{ client: Client; provider: MemoryAuthProvider; signedIn: boolean }> {
  const first = newClient(era);
  const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider: provider });
  try {
    await first.connect(transport);
    return { client: first, provider, signedIn: false };
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  const callback = await browserSignIn(provider.authorizationUrl!, login);
  expect(callback.searchParams.get('iss')).toBe(new URL(url).origin);
  await transport.finishAuth(callback.searchParams);
  const client = newClient(era);
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { authProvider: provider }));
  return { client, provider, signedIn: true };
}

async function whoAmI(client: Client): Promise<{ isError?: boolean; sub?: string; text: string }> {
  const result = await client.callTool({ name: 'echo_get', arguments: { id: 'me' } });
  const text = JSON.stringify(result.content);
  const structured = (result.content as { type: string; text?: string }[])[0]?.text;
  let sub: string | undefined;
  try {
    sub = (JSON.parse(structured ?? '{}') as { sub?: string }).sub;
  } catch {}
  return { isError: result.isError as boolean | undefined, sub, text };
}

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  const sdkPort = await freePort();
  sdkPublicUrl = `http://127.0.0.1:${sdkPort}`;
  oidc = await startOidcUpstream(`${publicUrl}/oauth/callback`, `${sdkPublicUrl}/oauth/callback`);
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${oidc.api.url}/api`, (yaml) =>
    yaml
      .replace(/auth:\n(?: {2}.*\n)+/, 'auth:\n  mode: user_oauth\n  hasAuthSecret: false\n')
      .replace('requiredEnv:\n  - SVC_UPSTREAM_SECRET', 'requiredEnv: []')
      .concat(
        `oauth:\n  authorizeUrl: ${oidc.issuer}/auth\n  tokenUrl: ${oidc.issuer}/token\n  scopes: [${API_SCOPE}]\n`,
      ),
  );
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: String(port),
      MCP_RUNTIME_PUBLIC_URL: publicUrl,
      SVC_OAUTH_KEY: OAUTH_KEY,
      SVC_OAUTH_CLIENT_ID: UPSTREAM_CLIENT_ID,
      SVC_OAUTH_CLIENT_SECRET: UPSTREAM_CLIENT_SECRET,
      SVC_OAUTH_ALLOW_LOOPBACK: '1',
    }),
    folderDir: folder.dir,
    logger,
  });
  sdkRuntime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: String(sdkPort),
      MCP_RUNTIME_PUBLIC_URL: sdkPublicUrl,
      SVC_OAUTH_KEY: OAUTH_KEY,
      SVC_OAUTH_CLIENT_ID: UPSTREAM_CLIENT_ID,
      SVC_OAUTH_CLIENT_SECRET: UPSTREAM_CLIENT_SECRET,
    }),
    folderDir: folder.dir,
    logger,
    fastPath: false,
  });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await sdkRuntime?.close();
  await oidc?.close();
  await folder?.remove();
  await closeSharedChromium();
});

describe.skipIf(chromiumMissing)('user_oauth against oidc-provider', () => {
  it('publishes RFC 9728 and RFC 8414 metadata naming the runtime', async () => {
    const prm = await (await fetch(`${publicUrl}/.well-known/oauth-protected-resource/mcp/echo-api`)).json();
    expect(prm).toMatchObject({ resource: `${publicUrl}/mcp/echo-api`, authorization_servers: [publicUrl] });
    const as = await (await fetch(`${publicUrl}/.well-known/oauth-authorization-server`)).json();
    expect(as).toMatchObject({
      issuer: publicUrl,
      authorization_endpoint: `${publicUrl}/oauth/authorize`,
      token_endpoint: `${publicUrl}/oauth/token`,
      registration_endpoint: `${publicUrl}/oauth/register`,
      code_challenge_methods_supported: ['S256'],
      client_id_metadata_document_supported: true,
    });
    const challenge = await fetch(`${publicUrl}/mcp/echo-api`, { method: 'POST', body: '{}' });
    expect(challenge.status).toBe(401);
    expect(challenge.headers.get('www-authenticate')).toContain(
      `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp/echo-api"`,
    );
  });

  it.each(['modern', 'legacy'] as const)(
    'the SDK client completes the flow and calls the API as the person (%s era)',
    async (era) => {
      const { client, signedIn } = await connectAs(`alice-${era}`, era);
      expect(signedIn).toBe(true);
      const me = await whoAmI(client);
      expect(me.isError).toBeFalsy();
      expect(me.sub).toBe(`alice-${era}`);
      await client.close();
    },
    60_000,
  );

  it.each(['modern', 'legacy'] as const)(
    'calls carry the person’s token through the SDK path too (%s era)',
    async (era) => {
      const { client } = await connectAs(`ivan-${era}`, era, new MemoryAuthProvider(), sdkRuntime.url);
      expect((await whoAmI(client)).sub).toBe(`ivan-${era}`);
      expect(sdkRuntime.hotPathServed()).toBe(0);
      await client.close();
    },
    60_000,
  );

  it('two people get their own upstream identities, and svc’s own token never reaches the API', async () => {
    const alice = await connectAs('alice', 'modern');
    const bob = await connectAs('bob', 'legacy');
    expect((await whoAmI(alice.client)).sub).toBe('alice');
    expect((await whoAmI(bob.client)).sub).toBe('bob');
    const svcTokens = [alice.provider.saved!, bob.provider.saved!].flatMap((t) => [
      t.access_token,
      t.refresh_token,
    ]);
    for (const token of svcTokens) {
      expect(token).toBeTruthy();
      expect(oidc.bearers).not.toContain(token);
      for (const seen of oidc.api.requests) expect(JSON.stringify(seen.headers)).not.toContain(token!);
    }
    await alice.client.close();
    await bob.client.close();
  }, 90_000);

  it('a 2025-era session opened by one person answers another person’s valid token with 404', async () => {
    const carol = await connectAs('carol', 'legacy');
    const dave = await connectAs('dave', 'legacy');
    const post = (token: string, body: unknown, sid?: string) =>
      fetch(runtime.url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${token}`,
          ...(sid ? { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } : {}),
        },
        body: JSON.stringify(body),
      });
    const carolToken = carol.provider.saved!.access_token;
    const init = await post(carolToken, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'hijack', version: '1' },
      },
    });
    await init.text();
    const sid = init.headers.get('mcp-session-id')!;
    expect(sid).toBeTruthy();
    await (await post(carolToken, { jsonrpc: '2.0', method: 'notifications/initialized' }, sid)).text();
    const callBody = {
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'echo_get', arguments: { id: 'me' } },
    };
    const mine = await post(carolToken, callBody, sid);
    expect(mine.status).toBe(200);
    expect(await mine.text()).toContain('carol');
    const before = oidc.api.requests.length;
    const hijack = await post(dave.provider.saved!.access_token, { ...callBody, id: 2 }, sid);
    expect(hijack.status).toBe(404);
    expect(oidc.api.requests.length).toBe(before);
    await carol.client.close();
    await dave.client.close();
  }, 90_000);

  it('refreshes an expired upstream token through the client’s own refresh grant', async () => {
    oidc.setAccessTokenTtl(2);
    try {
      const { client, provider } = await connectAs('carol', 'modern');
      const firstToken = provider.saved!.access_token;
      expect((await whoAmI(client)).sub).toBe('carol');
      // svc's token expires with the upstream one; wait until the provider itself says it is gone.
      const started = Date.now();
      while (Date.now() - started < 10_000) {
        const bearer = oidc.bearers.at(-1)!;
        const probe = await fetch(`${oidc.api.url}/api/echo/items/me`, {
          headers: { authorization: `Bearer ${bearer}` },
        });
        if (probe.status === 401) break;
        await new Promise((r) => setTimeout(r, 200));
      }
      oidc.setAccessTokenTtl(600);
      const again = await whoAmI(client);
      expect(again.isError).toBeFalsy();
      expect(again.sub).toBe('carol');
      expect(provider.saved!.access_token).not.toBe(firstToken);
      await client.close();
    } finally {
      oidc.setAccessTokenTtl(600);
    }
  }, 60_000);

  it('a revoked grant sends the client back through authorization', async () => {
    const { client, provider } = await connectAs('dave', 'legacy');
    expect((await whoAmI(client)).sub).toBe('dave');
    await oidc.revoke('dave');
    provider.authorizationUrl = undefined;
    await expect(client.callTool({ name: 'echo_get', arguments: { id: 'me' } })).rejects.toThrow(
      UnauthorizedError,
    );
    // The runtime refused with a 401 challenge; the refresh failed (invalid_grant): sign in again.
    expect(provider.authorizationUrl).toBeDefined();
    // Ending the 2025 session needs authorization too, which this client no longer has.
    await client.close().catch(() => {});
    // The host sends the person through authorization again, and the calls work once more.
    const callback = await browserSignIn(provider.authorizationUrl!, 'dave');
    await new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider }).finishAuth(
      callback.searchParams,
    );
    const back = newClient('legacy');
    await back.connect(new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider }));
    expect((await whoAmI(back)).sub).toBe('dave');
    await back.close();
  }, 90_000);

  it('refuses a token minted for another resource', async () => {
    const { client, provider } = await connectAs('erin', 'modern', undefined, `${publicUrl}/mcp/echo-api`);
    expect((await whoAmI(client)).sub).toBe('erin');
    await client.close();
    const token = provider.saved!.access_token;
    const call = (path: string) =>
      fetch(`${publicUrl}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      });
    expect((await call('/mcp/echo-api')).status).not.toBe(401);
    const other = await call('/mcp');
    expect(other.status).toBe(401);
    expect(other.headers.get('www-authenticate')).toMatch(/invalid_token/);
  }, 60_000);

  it('takes a client ID metadata document as client_id; a code is single-use and bound to its PKCE verifier', async () => {
    const doc = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ client_id: cimdUrl, client_name: 'CIMD host', redirect_uris: [REDIRECT] }));
    });
    await new Promise<void>((resolve) => doc.listen(0, '127.0.0.1', resolve));
    const cimdUrl = `http://127.0.0.1:${(doc.address() as AddressInfo).port}/oauth/client.json`;
    try {
      const provider = new MemoryAuthProvider(cimdUrl);
      const first = newClient('modern');
      const transport = new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider });
      await expect(first.connect(transport)).rejects.toThrow(UnauthorizedError);
      expect(provider.authorizationUrl?.searchParams.get('client_id')).toBe(cimdUrl);
      const callback = await browserSignIn(provider.authorizationUrl!, 'frank');
      const code = callback.searchParams.get('code')!;
      const exchange = (verifier: string) =>
        fetch(`${publicUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            client_id: cimdUrl,
            redirect_uri: REDIRECT,
            code_verifier: verifier,
          }),
        });
      const wrong = await exchange('x'.repeat(43));
      expect(wrong.status).toBe(400);
      expect(await wrong.json()).toMatchObject({ error: 'invalid_grant' });
      await transport.finishAuth(callback.searchParams);
      const replay = await exchange(provider.verifier);
      expect(replay.status).toBe(400);
      expect(await replay.json()).toMatchObject({ error: 'invalid_grant' });
      const client = newClient('modern');
      await client.connect(
        new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider }),
      );
      expect((await whoAmI(client)).sub).toBe('frank');
      await client.close();
    } finally {
      await new Promise<void>((resolve) => doc.close(() => resolve()));
    }
  }, 60_000);

  it('refuses authorization requests it must not serve', async () => {
    const registered = await (
      await fetch(`${publicUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ redirect_uris: [REDIRECT], client_name: 'refusals' }),
      })
    ).json();
    expect(registered.token_endpoint_auth_method).toBe('none');
    // Browser-based MCP clients reach the JSON endpoints too.
    const preflight = await fetch(`${publicUrl}/oauth/token`, {
      method: 'OPTIONS',
      headers: { origin: 'https://inspector.example.test', 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    const authorize = (params: Record<string, string>) =>
      fetch(`${publicUrl}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });
    const good = {
      response_type: 'code',
      client_id: registered.client_id as string,
      redirect_uri: REDIRECT,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
      state: 's1',
      resource: `${publicUrl}/mcp`,
    };
    const ok = await authorize(good);
    expect(ok.status).toBe(302);
    expect(ok.headers.get('location')).toMatch(new RegExp(`^${oidc.issuer}/auth\\?`));
    // The provider is asked for the folder's scopes (and those the enabled tools record).
    expect(new URL(ok.headers.get('location')!).searchParams.get('scope')).toBe(API_SCOPE);
    const errorOf = async (params: Record<string, string>) => {
      const r = await authorize(params);
      expect(r.status).toBe(302);
      const to = new URL(r.headers.get('location')!);
      expect(to.searchParams.get('iss')).toBe(publicUrl);
      expect(to.searchParams.get('state')).toBe('s1');
      return to.searchParams.get('error');
    };
    expect(await errorOf({ ...good, code_challenge_method: 'plain' })).toBe('invalid_request');
    expect(await errorOf({ ...good, resource: 'https://other.example.test/mcp' })).toBe('invalid_target');
    expect(await errorOf({ ...good, response_type: 'token' })).toBe('unsupported_response_type');
    // Without a known client or a registered redirect URI nothing is redirected anywhere.
    expect((await authorize({ ...good, redirect_uri: 'https://attacker.example.test/cb' })).status).toBe(400);
    expect((await authorize({ ...good, client_id: `${good.client_id}x` })).status).toBe(400);
    expect((await authorize({ ...good, client_id: 'https://127.0.0.1:1/nothing-here.json' })).status).toBe(
      400,
    );
    const badRegistration = await fetch(`${publicUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: ['http://attacker.example.test/cb'] }),
    });
    expect(badRegistration.status).toBe(400);
  });

  it('no token appears in a log line', () => {
    const lines = JSON.stringify(logger.records);
    expect(lines).not.toContain(UPSTREAM_CLIENT_SECRET);
    for (const bearer of oidc.bearers) expect(lines).not.toContain(bearer);
  });
});
