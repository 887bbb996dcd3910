/**
 * Session caps behind a load balancer (SVC_TRUST_PROXY): every client behind haproxy reaches the
 * runtime from the balancer's address, so a per-client cap counted on that address lets one client
 * evict everyone's sessions. With the balancer's address listed in SVC_TRUST_PROXY, the client is
 * the X-Forwarded-For entry the balancer added: one client's flood evicts only its own sessions.
 * A client that reaches the runtime directly, or writes its own X-Forwarded-For entries before
 * the balancer's, cannot choose the address it is counted under. Real requests over node:http
 * from given loopback addresses (127.0.0.x all reach the listener).
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { copyFixtureFolder, type TempFolder } from '../runtime/testing/index.js';

const PROXY = '127.0.0.5';
let runtime: RunningRuntime;
let folder: TempFolder;

beforeAll(async () => {
  folder = await copyFixtureFolder('fixtures/runtime/basic', 'http://127.0.0.1:1/api');
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: 'sk-proxy-1234',
      SVC_TRUST_PROXY: PROXY,
    }),
    folderDir: folder.dir,
    maxSessionsPerClient: 2,
    logger: { log() {} },
  });
});
afterAll(async () => {
  await runtime?.close();
  await folder?.remove();
});

const HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function post(
  body: unknown,
  from: string,
  headers: Record<string, string>,
): Promise<{ status: number; sid?: string }> {
  const url = new URL(runtime.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        localAddress: from,
        headers: { host: `127.0.0.1:${url.port}`, ...HEADERS, ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => {
          const sid = res.headers['mcp-session-id'];
          resolve({ status: res.statusCode ?? 0, ...(typeof sid === 'string' ? { sid } : {}) });
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

/** Opens a 2025-11-25 session; returns its id. */
async function open(from: string, forwardedFor?: string): Promise<string> {
  const answer = await post(
    {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'p', version: '1' } },
    },
    from,
    forwardedFor ? { 'x-forwarded-for': forwardedFor } : {},
  );
  expect(answer.status).toBe(200);
  return answer.sid!;
}

/** 200 while the session is open, 404 once evicted. */
async function status(sid: string, from: string): Promise<number> {
  const headers = { 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' };
  return (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }, from, headers)).status;
}

describe('SVC_TRUST_PROXY=<balancer address>', () => {
  it("counts each client behind the balancer on its own: one client's flood evicts only its own sessions", async () => {
    const alice = await open(PROXY, '198.51.100.1');
    const bob = [];
    for (let i = 0; i < 3; i++) bob.push(await open(PROXY, '198.51.100.2'));
    expect(await status(alice, PROXY)).toBe(200);
    // Bob's cap is 2: his least recently used session went, nobody else's.
    expect(await status(bob[0]!, PROXY)).toBe(404);
    expect(await status(bob[2]!, PROXY)).toBe(200);
  });

  it('a client reaching the runtime directly is counted on its own address, whatever X-Forwarded-For says', async () => {
    const direct = '127.0.0.6';
    const first = await open(direct, '198.51.100.20');
    await open(direct, '198.51.100.21');
    await open(direct, '198.51.100.22');
    expect(await status(first, direct)).toBe(404);
  });

  it("entries a client writes before the balancer's own do not choose its address", async () => {
    const first = await open(PROXY, '203.0.113.1, 198.51.100.30');
    await open(PROXY, '203.0.113.2, 198.51.100.30');
    await open(PROXY, '203.0.113.3, 198.51.100.30');
    expect(await status(first, PROXY)).toBe(404);
  });
});
