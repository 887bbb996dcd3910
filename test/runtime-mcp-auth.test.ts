/**
 * MCP_AUTH=bearer (contracts/oauth.md): /mcp answers only a client presenting a token whose
 * SHA-256 is in SVC_MCP_TOKENS, with the SDK's 401 and `WWW-Authenticate: Bearer` otherwise,
 * in both eras; and the boot warning of a shared-credential runtime listening beyond loopback
 * with MCP_AUTH=none. Real runtime, real upstream on 127.0.0.1, the MCP SDK's client.
 */
import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import type { Era } from './helpers/mcp-client.js';

const TOKENS = ['mcp-token-alpha-1f2e3d', 'mcp-token-beta-9a8b7c'];
const sha = (t: string) => createHash('sha256').update(t).digest('hex');

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: 'sk-mcp-auth-test',
      MCP_AUTH: 'bearer',
      SVC_MCP_TOKENS: TOKENS.map(sha).join(','),
    }),
    folderDir: folder.dir,
    logger: memoryLogger(),
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

async function connect(era: Era, token?: string): Promise<Client> {
  const client = new Client(
    { name: 'bearer', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  const headers: Record<string, string> = token ? { authorization: `Bearer ${token}` } : {};
  await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url), { requestInit: { headers } }));
  return client;
}

describe('MCP_AUTH=bearer', () => {
  it.each(['modern', 'legacy'] as const)('serves a client with a listed token (%s era)', async (era) => {
    for (const token of TOKENS) {
      const client = await connect(era, token);
      const result = await client.callTool({ name: 'echo_get', arguments: { id: '3' } });
      expect(result.isError).toBeFalsy();
      await client.close();
    }
  });

  it.each(['modern', 'legacy'] as const)('refuses a client without a token (%s era)', async (era) => {
    await expect(connect(era)).rejects.toThrow();
  });

  it('answers 401 with WWW-Authenticate: Bearer, for no token, a wrong one and the hash itself', async () => {
    const before = upstream.requests.length;
    for (const auth of [undefined, 'Bearer wrong-token', `Bearer ${sha(TOKENS[0]!)}`, 'Basic abc']) {
      for (const path of ['/mcp', '/mcp/echo-api']) {
        const response = await fetch(new URL(path, runtime.url), {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            ...(auth ? { authorization: auth } : {}),
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'echo_get', arguments: { id: '1' } },
          }),
        });
        expect(response.status).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Bearer/);
        const text = await response.text();
        expect(text).not.toContain('mcp-token');
      }
    }
    expect(upstream.requests.length).toBe(before);
  });

  it('leaves /healthz open and answers CORS preflight without a token', async () => {
    expect((await fetch(new URL('/healthz', runtime.url))).status).toBe(200);
    const preflight = await fetch(runtime.url, { method: 'OPTIONS' });
    expect(preflight.status).toBe(204);
  });
});

describe('boot warning', () => {
  const boot = async (vars: Record<string, string>) => {
    const logger = memoryLogger();
    const r = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-mcp-auth-test', ...vars }),
      folderDir: folder.dir,
      logger,
    });
    await r.close();
    return logger.records.find((rec) => rec.event === 'mcp_unprotected');
  };

  it('warns when a shared-credential runtime listens beyond loopback with MCP_AUTH=none', async () => {
    const warning = await boot({ MCP_RUNTIME_HOST: '0.0.0.0' });
    expect(warning?.level).toBe('warn');
    expect(String(warning?.message)).toMatch(/MCP_AUTH=none.*shared credential/);
  });

  it('stays quiet on loopback, and when MCP_AUTH protects the endpoint', async () => {
    expect(await boot({})).toBeUndefined();
    expect(
      await boot({ MCP_RUNTIME_HOST: '0.0.0.0', MCP_AUTH: 'bearer', SVC_MCP_TOKENS: sha('x'.repeat(20)) }),
    ).toBeUndefined();
  });
});
