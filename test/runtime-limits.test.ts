/**
 * Resource limits of the runtime (issue 8 item 5), over real sockets: a chunked body over the
 * size limit is refused with 413 without being read whole; a flood of `initialize` from one
 * address cannot lock other clients out (per-address and total caps, least recently used idle
 * session evicted); a cancelled call's response stream is closed at once; arguments nested
 * thousands of levels deep are refused as invalid params naming the limit.
 */
import { request as httpRequest } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../runtime/json-depth.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;

/** Upstream /slow requests whose connection closed before their answer went out. */
let slowAbandoned = 0;
/** Upstream /slow requests received: a call counted here is under way. */
let slowArrived = 0;

/** Resolves once the upstream has received `count` more /slow requests than `before`. */
const slowUnderWay = (before: number, count = 1) =>
  expect.poll(() => slowArrived - before, { timeout: 10_000, interval: 5 }).toBe(count);

beforeAll(async () => {
  upstream = await startEchoUpstream({
    record: false,
    route: (_req, res, _body, url) => {
      if (url.pathname === '/api/slow') {
        slowArrived++;
        res.on('close', () => {
          if (!res.writableFinished) slowAbandoned++;
        });
      }
      return false;
    },
  });
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-limits-1234' }),
    folderDir: folder.dir,
    maxSessions: 40,
    maxSessionsPerClient: 10,
    logger: { log() {} },
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface RawAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** ms from sending the request to the end of the answer's body. */
  endedAfterMs: number;
}

/** One POST over node:http, optionally from a given local address (127.0.0.x all reach loopback). */
function post(
  body: string,
  headers: Record<string, string>,
  localAddress?: string,
  onResponse?: () => void,
): Promise<RawAnswer> {
  const url = new URL(runtime.url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: url.port,
        path: url.pathname,
        method: 'POST',
        headers: { host: `127.0.0.1:${url.port}`, ...headers },
        ...(localAddress ? { localAddress } : {}),
        agent: false,
      },
      (res) => {
        onResponse?.();
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          text += d;
        });
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: text,
            endedAfterMs: performance.now() - started,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

function rpc(text: string): { id?: unknown; result?: unknown; error?: { code: number; message: string } } {
  const data = text.includes('data: ')
    ? text
        .split('\n')
        .filter((l) => l.startsWith('data: ') && l.length > 6)
        .at(-1)!
        .slice(6)
    : text;
  return JSON.parse(data);
}

async function initialize(localAddress?: string): Promise<RawAnswer> {
  return post(
    JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'flood', version: '1' },
      },
    }),
    MCP_HEADERS,
    localAddress,
  );
}

function sessionHeaders(id: string): Record<string, string> {
  return { ...MCP_HEADERS, 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' };
}

describe('request body limit', () => {
  it('refuses a 50 MB chunked body with 413 without reading it whole', { timeout: 30_000 }, async () => {
    const url = new URL(runtime.url);
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    const total = 50 * 1024 * 1024;
    const rssBefore = process.memoryUsage().rss;
    let peakRss = rssBefore;
    const started = performance.now();
    const outcome = await new Promise<{ status: number; sent: number; ms: number }>((resolve, reject) => {
      let sent = 0;
      let answered = false;
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: url.port,
          path: url.pathname,
          method: 'POST',
          headers: { ...MCP_HEADERS, 'transfer-encoding': 'chunked' },
          agent: false,
        },
        (res) => {
          answered = true;
          resolve({ status: res.statusCode ?? 0, sent, ms: performance.now() - started });
          res.resume();
          req.destroy();
        },
      );
      req.on('error', (error) => {
        if (!answered) reject(error);
      });
      req.write('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"');
      const pump = () => {
        while (!answered && sent < total) {
          sent += chunk.length;
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
          if (!req.write(chunk)) {
            req.once('drain', pump);
            return;
          }
        }
        if (!answered) req.end('"}}');
      };
      pump();
    });
    expect(outcome.status).toBe(413);
    // Stopped at the 4 MiB limit: far less than the whole body went out before the answer came.
    expect(outcome.sent).toBeLessThan(total / 2);
    expect(outcome.ms).toBeLessThan(10_000);
    expect((peakRss - rssBefore) / 1024 / 1024).toBeLessThan(64);
  });
});

describe('2025-era session caps', () => {
  it('a flood of initialize from one address does not lock out other clients or that address', {
    timeout: 30_000,
  }, async () => {
    // A client on another address opened a session before the flood.
    const early = await initialize('127.0.0.3');
    const earlyId = String(early.headers['mcp-session-id']);
    expect(early.status).toBe(200);

    for (let i = 0; i < 60; i++) {
      const answer = await initialize('127.0.0.2');
      expect(answer.status, answer.body).toBe(200);
    }
    expect(runtime.sessionCount()).toBeLessThanOrEqual(40);

    // The early session survived: the flood only evicted the flooder's own sessions.
    const list = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} }),
      sessionHeaders(earlyId),
      '127.0.0.3',
    );
    expect(list.status).toBe(200);
    expect(list.body).toContain('echo_get');

    // A new SDK client (from 127.0.0.1) still gets a session and works.
    const client = await connectClient(runtime.url, 'late');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toContain('echo_get');
    await client.close();
  });

  it('fills the total cap from many addresses and still admits a new client by evicting the least recently used', {
    timeout: 30_000,
  }, async () => {
    for (let i = 0; i < 45; i++) {
      const answer = await initialize(`127.0.1.${(i % 9) + 1}`);
      expect(answer.status, answer.body).toBe(200);
    }
    expect(runtime.sessionCount()).toBeLessThanOrEqual(40);
    const late = await initialize('127.0.2.1');
    expect(late.status).toBe(200);
  });
});

describe('cancellation', () => {
  it('closes the response stream of a cancelled call at once (raw HTTP)', { timeout: 20_000 }, async () => {
    const init = await initialize();
    const sid = String(init.headers['mcp-session-id']);
    const arrived = slowArrived;
    const call = post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 77,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 4000 } },
      }),
      sessionHeaders(sid),
    );
    // The call is under way (the answer's headers may come only with its result: JSON answers).
    await slowUnderWay(arrived);
    const cancelled = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        method: 'notifications/cancelled',
        params: { requestId: 77, reason: 'user' },
      }),
      sessionHeaders(sid),
    );
    expect(cancelled.status).toBe(202);
    const answer = await call;
    // Closed right after the cancellation, not when the slow upstream answers (4 s) or the session ends.
    expect(answer.endedAfterMs).toBeLessThan(2000);
    expect(answer.body).not.toContain('"result"');
  });

  it('ends the upstream request when a 2026-07-28 client goes away mid-call (hot path)', {
    timeout: 20_000,
  }, async () => {
    const before = { abandoned: slowAbandoned, hot: runtime.hotPathServed(), arrived: slowArrived };
    const url = new URL(runtime.url);
    const req = httpRequest({
      host: '127.0.0.1',
      port: url.port,
      path: url.pathname,
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'slow',
      },
      agent: false,
    });
    req.on('error', () => {});
    req.end(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 5,
        method: 'tools/call',
        params: { name: 'slow', arguments: { ms: 4000 }, _meta: MODERN_META },
      }),
    );
    await slowUnderWay(before.arrived);
    expect(runtime.hotPathServed() - before.hot).toBe(1);
    req.destroy();
    // Aborted at once, not left running until the slow upstream answers (4 s).
    await expect.poll(() => slowAbandoned - before.abandoned, { timeout: 2000 }).toBe(1);
  });

  it('closes the stream when the SDK client cancels through an AbortSignal', {
    timeout: 20_000,
  }, async () => {
    const ended: number[] = [];
    const started = performance.now();
    const watchingFetch: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      const body = typeof init?.body === 'string' ? init.body : '';
      if (!body.includes('"tools/call"') || response.body === null) return response;
      const reader = response.body.getReader();
      const watched = new ReadableStream<Uint8Array>({
        async pull(controller) {
          try {
            const { done, value } = await reader.read();
            if (done) {
              ended.push(performance.now() - started);
              controller.close();
            } else controller.enqueue(value);
          } catch (error) {
            ended.push(performance.now() - started);
            controller.error(error);
          }
        },
        cancel(reason) {
          return reader.cancel(reason);
        },
      });
      return new Response(watched, { status: response.status, headers: response.headers });
    };
    const client = new Client({ name: 'cancel', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url), { fetch: watchingFetch }));
    const controller = new AbortController();
    const arrived = slowArrived;
    const call = client.callTool({ name: 'slow', arguments: { ms: 4000 } }, { signal: controller.signal });
    await slowUnderWay(arrived);
    controller.abort('user');
    await expect(call).rejects.toThrow();
    await expect.poll(() => ended.length, { timeout: 2000 }).toBe(1);
    expect(ended[0]).toBeLessThan(2500);
    await client.close();
  });
});

describe('deeply nested arguments', () => {
  function nested(depth: number): string {
    return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
  }

  it.each([5_000, 100_000])(
    'refuses %i levels as invalid params naming the limit (2026-07-28)',
    async (depth) => {
      const body = `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"x","deep":${nested(depth)}},"_meta":${JSON.stringify(MODERN_META)}}}`;
      const answer = await post(body, {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo_get',
      });
      const message = rpc(answer.body);
      expect(message.id).toBe(5);
      expect(message.error?.code).toBe(-32602);
      expect(message.error?.message).toContain(`${MAX_JSON_DEPTH}`);
      expect(message.error?.message).not.toMatch(/call stack/i);
    },
  );

  it.each([5_000, 100_000])(
    'refuses %i levels as invalid params naming the limit (2025-11-25 session)',
    async (depth) => {
      const init = await initialize();
      const sid = String(init.headers['mcp-session-id']);
      const body = `{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"x","deep":${nested(depth)}}}}`;
      const answer = await post(body, sessionHeaders(sid));
      const message = rpc(answer.body);
      expect(message.id).toBe(6);
      expect(message.error?.code).toBe(-32602);
      expect(message.error?.message).toContain(`${MAX_JSON_DEPTH}`);
    },
  );

  it('still serves arguments nested within the limit', async () => {
    const body = `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"echo_json","arguments":{"name":"n","count":1,"deep":${nested(50)}},"_meta":${JSON.stringify(MODERN_META)}}}`;
    const answer = await post(body, {
      ...MCP_HEADERS,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
      'mcp-name': 'echo_json',
    });
    const message = rpc(answer.body);
    expect(message.error).toBeUndefined();
  });
});
