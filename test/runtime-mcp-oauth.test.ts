/**
 * MCP_AUTH=oauth (contracts/oauth.md): the same facade in front of an OpenID provider named by
 * MCP_OAUTH_ISSUER (oidc-provider on 127.0.0.1, found by discovery), while the calls keep the
 * folder's shared credential. The SDK client's OAuth support drives the flow; headless Chromium
 * signs the person in. Missing variables refuse to boot rather than leave /mcp open.
 */
import { Client, StreamableHTTPClientTransport, UnauthorizedError } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';
import { chromiumMissing, closeSharedChromium } from './helpers/headless-chromium.js';
import { browserSignIn, MemoryAuthProvider } from './helpers/oauth-client.js';
import {
  freePort,
  type OidcUpstream,
  startOidcUpstream,
  UPSTREAM_CLIENT_ID,
  UPSTREAM_CLIENT_SECRET,
} from './helpers/oidc-upstream.js';

const SHARED = 'sk-shared-upstream-4d5e6f';
let oidc: OidcUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let publicUrl: string;

beforeAll(async () => {
  const port = await freePort();
  publicUrl = `http://127.0.0.1:${port}`;
  oidc = await startOidcUpstream(`${publicUrl}/oauth/callback`);
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${oidc.api.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: String(port),
      MCP_RUNTIME_PUBLIC_URL: publicUrl,
      SVC_UPSTREAM_SECRET: SHARED,
      MCP_AUTH: 'oauth',
      MCP_OAUTH_ISSUER: oidc.issuer,
      SVC_OAUTH_KEY: Buffer.alloc(32, 0x3c).toString('base64'),
      SVC_OAUTH_CLIENT_ID: UPSTREAM_CLIENT_ID,
      SVC_OAUTH_CLIENT_SECRET: UPSTREAM_CLIENT_SECRET,
    }),
    folderDir: folder.dir,
    logger: memoryLogger(),
  });
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await oidc?.close();
  await folder?.remove();
  await closeSharedChromium();
});

describe.skipIf(chromiumMissing)('MCP_AUTH=oauth against an OpenID provider', () => {
  it('refuses an unauthenticated request with the challenge naming the metadata', async () => {
    const response = await fetch(`${publicUrl}/mcp`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toContain(
      `resource_metadata="${publicUrl}/.well-known/oauth-protected-resource/mcp"`,
    );
  });

  it('signs the person in at the provider; the API still gets the shared credential', async () => {
    const provider = new MemoryAuthProvider();
    const first = new Client({ name: 'mcp-oauth', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider });
    await expect(first.connect(transport)).rejects.toThrow(UnauthorizedError);
    expect(provider.authorizationUrl?.origin).toBe(publicUrl);
    const callback = await browserSignIn(provider.authorizationUrl!, 'hana');
    expect(callback.searchParams.get('iss')).toBe(publicUrl);
    await transport.finishAuth(callback.searchParams);
    const client = new Client({ name: 'mcp-oauth', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url), { authProvider: provider }));
    const before = oidc.api.requests.length;
    const result = await client.callTool({ name: 'echo_get', arguments: { id: '12' } });
    expect(result.isError).toBeFalsy();
    const sent = oidc.api.requests.slice(before).find((r) => r.path === '/api/echo/items/12');
    expect(sent?.headers['x-api-key']).toBe(SHARED);
    expect(sent?.headers.authorization).toBeUndefined();
    await client.close();
  }, 60_000);

  it('refuses to boot when a variable it needs is missing, naming it', () => {
    let error: unknown;
    try {
      parseRuntimeEnv({ MCP_AUTH: 'oauth', MCP_OAUTH_ISSUER: oidc.issuer });
    } catch (e) {
      error = e;
    }
    expect(isSvcError(error) && error.code).toBe('CONFIG_MISSING_ENV');
    expect(String((error as Error).message)).toMatch(
      /SVC_OAUTH_KEY, SVC_OAUTH_CLIENT_ID, MCP_RUNTIME_PUBLIC_URL/,
    );
  });
});
