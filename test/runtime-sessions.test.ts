/**
 * 2025-11-25 sessions over real HTTP: idle expiry and DELETE give 404, a session is pinned to
 * the /mcp path it started on and to the config version it started with, while new sessions
 * and stateless 2026-07-28 requests see a swapped config at once.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

const SECRET = 'sk-sessions-9a8b7c6d';
let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
// The runtime's clock: real time plus what a test moves it on (idle expiry without waiting).
let skewMs = 0;
const IDLE_MS = 60_000;

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET }),
    folderDir: folder.dir,
    now: () => Date.now() + skewMs,
    sessionIdleMs: IDLE_MS,
    logger: { log() {} },
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

const JSON_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

async function initialize(url: string): Promise<string> {
  const response = await fetch(url, {
    method: 'POST',
    headers: JSON_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(response.status).toBe(200);
  await response.text();
  const id = response.headers.get('mcp-session-id');
  expect(id).toMatch(/^[\x21-\x7e]+$/);
  return id!;
}

function listTools(url: string, sessionId: string): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { ...JSON_HEADERS, 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
  });
}

async function legacyClient(
  url: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'legacy', version: '1' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

/**
 * A fetch for a client transport that resolves `acknowledged` when the runtime's answer to
 * subscriptions/listen carries notifications/subscriptions/acknowledged: the listener is in place.
 */
function listenAcknowledged(): { fetch: typeof fetch; acknowledged: Promise<void> } {
  let acknowledge!: () => void;
  const acknowledged = new Promise<void>((resolve) => {
    acknowledge = resolve;
  });
  const watch = async (body: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    const reader = body.getReader();
    let text = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      // Read to the end: the tee keeps what one branch has not read yet.
      text += decoder.decode(value, { stream: true });
      if (text.includes('notifications/subscriptions/acknowledged')) acknowledge();
      text = text.slice(-100);
    }
  };
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    if (!String(init?.body ?? '').includes('subscriptions/listen') || !response.body) return response;
    const [mine, theirs] = response.body.tee();
    void watch(mine).catch(() => {});
    return new Response(theirs, response);
  };
  return { fetch: wrapped, acknowledged };
}

const modernClient = (url: string) => connectClient(url, 'modern', 'modern');

describe('2025-11-25 sessions', () => {
  it('issue a session id, answer on it, and 404 an unknown one', async () => {
    const id = await initialize(runtime.url);
    const ok = await listTools(runtime.url, id);
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('echo_get');
    const unknown = await listTools(runtime.url, 'not-a-session');
    expect(unknown.status).toBe(404);
  });

  it('serve a claim-less request without a session statelessly (curl-style), and refuse GET without one', async () => {
    const response = await fetch(runtime.url, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    expect(await response.text()).toContain('echo_get');
    const get = await fetch(runtime.url, { headers: { accept: 'text/event-stream' } });
    expect(get.status).toBe(405);
  });

  it('expire after the idle period (404)', async () => {
    const id = await initialize(runtime.url);
    skewMs += IDLE_MS / 2;
    const alive = await listTools(runtime.url, id);
    expect(alive.status).toBe(200);
    await alive.text();
    skewMs += IDLE_MS + 1;
    const expired = await listTools(runtime.url, id);
    expect(expired.status).toBe(404);
    expect((await expired.json()).error.code).toBe(-32001);
  });

  it('end on DELETE, then 404', async () => {
    const id = await initialize(runtime.url);
    const deleted = await fetch(runtime.url, {
      method: 'DELETE',
      headers: { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' },
    });
    expect(deleted.status).toBe(200);
    expect((await listTools(runtime.url, id)).status).toBe(404);
  });

  it('are pinned to the /mcp path they started on; another server id is 404', async () => {
    const scoped = `${runtime.url}/echo-api`;
    const id = await initialize(scoped);
    expect((await listTools(scoped, id)).status).toBe(200);
    expect((await listTools(runtime.url, id)).status).toBe(404);
    const other = await fetch(`${runtime.url}/other-server`, {
      method: 'POST',
      headers: JSON_HEADERS,
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
    });
    expect(other.status).toBe(404);
    const modernOther = await fetch(`${runtime.url}/other-server`, {
      method: 'POST',
      headers: {
        ...JSON_HEADERS,
        'mcp-session-id': id,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    expect(modernOther.status).toBe(404);
  });

  it('keep their config version across a swap; new sessions and stateless requests see the new one', async () => {
    const before = await legacyClient(runtime.url);
    const modernBefore = await modernClient(runtime.url);
    expect((await before.client.listTools()).tools.map((t) => t.name)).toContain('echo_get');

    const next = structuredClone(runtime.store.current().folder);
    for (const t of next.tools) {
      if (t.tool.name === 'echo_get') t.tool.enabled = false;
      if (t.tool.name === 'hidden_delete') t.tool.enabled = true;
    }
    const oldVersion = runtime.store.version();
    runtime.store.swap(next);
    expect(runtime.store.version()).toBe(oldVersion + 1);

    const pinned = (await before.client.listTools()).tools.map((t) => t.name);
    expect(pinned).toContain('echo_get');
    expect(pinned).not.toContain('hidden_delete');
    const call = await before.client.callTool({ name: 'echo_get', arguments: { id: 'still-here' } });
    expect(call.isError).toBeFalsy();

    const after = await legacyClient(runtime.url);
    const fresh = (await after.client.listTools()).tools.map((t) => t.name);
    expect(fresh).not.toContain('echo_get');
    expect(fresh).toContain('hidden_delete');
    await expect(after.client.callTool({ name: 'echo_get', arguments: { id: 'x' } })).rejects.toThrow(
      /Unknown tool/,
    );

    const stateless = (await modernBefore.listTools()).tools.map((t) => t.name);
    expect(stateless).not.toContain('echo_get');
    expect(stateless).toContain('hidden_delete');

    await Promise.all([before.client.close(), after.client.close(), modernBefore.close()]);
  });

  it('a swap is announced to 2026-07-28 clients listening for list changes', async () => {
    const seen: string[][] = [];
    const client = new Client(
      { name: 'listener', version: '1' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        listChanged: {
          tools: {
            debounceMs: 0,
            onChanged: (error, tools) => {
              if (!error && tools) seen.push(tools.map((t) => t.name));
            },
          },
        },
      },
    );
    const listening = listenAcknowledged();
    await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url), { fetch: listening.fetch }));
    // The swap comes once the runtime has said it listens for this client (no fixed wait).
    await listening.acknowledged;
    const next = structuredClone(runtime.store.current().folder);
    for (const t of next.tools) if (t.tool.name === 'image') t.tool.enabled = false;
    runtime.store.swap(next);
    await expect.poll(() => seen.length, { timeout: 3000 }).toBeGreaterThan(0);
    expect(seen.at(-1)).not.toContain('image');
    expect(seen.at(-1)).toContain('echo_json');
    await client.close();
  });
});
