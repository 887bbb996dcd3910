/**
 * Rate limits (config.yaml `rateLimits`, contracts/operations.md), over real sockets with the
 * SDK's own client in both eras, on the hot path and on the SDK path: past a limit the call is
 * an isError result naming the limit and the retry time, and the upstream never sees it. The
 * caller is the client address, or the first X-Forwarded-For entry with SVC_TRUST_PROXY=1. An
 * upstream 429 with Retry-After reaches the client with the hint.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import type { Era } from './helpers/mcp-client.js';

type Content = { type: string; text?: string };
const text = (result: { content?: unknown }) =>
  ((result.content ?? []) as Content[]).map((c) => c.text ?? '').join('');

let upstream: EchoUpstream;
let folder: TempFolder;
const runtimes: RunningRuntime[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream({
    route: (_req, res, _body, url) => {
      if (url.pathname !== '/api/status/429') return false;
      res.writeHead(429, { 'content-type': 'text/plain', 'retry-after': '17' });
      res.end('slow down');
      return true;
    },
  });
  folder = await copyFixtureFolder(
    'fixtures/runtime/basic',
    `${upstream.url}/api`,
    (config) => `${config}rateLimits:\n  perCaller: 3/m\n  perTool:\n    echo_json: 2/h\n`,
  );
});
afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  for (const runtime of runtimes) await runtime.close();
  await upstream?.close();
  await folder?.remove();
});

async function boot(fastPath: boolean): Promise<RunningRuntime> {
  const runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: 'sk-rate-9f8e7d6c',
      SVC_TRUST_PROXY: '1',
    }),
    folderDir: folder.dir,
    fastPath,
    logger: { log() {} },
  });
  runtimes.push(runtime);
  return runtime;
}

async function connect(url: string, era: Era, forwardedFor: string): Promise<Client> {
  const client = new Client(
    { name: `rate-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { 'x-forwarded-for': `${forwardedFor}, 10.9.9.9` } },
    }),
  );
  clients.push(client);
  return client;
}

const echoCalls = () => upstream.requests.filter((r) => r.path.startsWith('/api/echo/items')).length;

for (const fastPath of [true, false]) {
  describe(`rate limits (${fastPath ? 'hot path' : 'SDK path'})`, () => {
    let runtime: RunningRuntime;
    beforeAll(async () => {
      runtime = await boot(fastPath);
    });

    it.each(['modern', 'legacy'] as const)(
      'refuses a caller past perCaller before the upstream (%s)',
      async (era) => {
        const client = await connect(
          runtime.url,
          era,
          `203.0.113.${era === 'modern' ? 1 : 2}${fastPath ? 0 : 5}`,
        );
        const before = echoCalls();
        for (let i = 0; i < 3; i++) {
          const ok = await client.callTool({ name: 'echo_get', arguments: { id: `x${i}` } });
          expect(ok.isError, text(ok)).toBeFalsy();
        }
        const refused = await client.callTool({ name: 'echo_get', arguments: { id: 'x4' } });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(
          /^Rate limit reached: this server allows 3 calls per minute for each caller.*rateLimits\.perCaller.*The API was not called\. Retry after \d+ s\.$/,
        );
        const seconds = Number(/Retry after (\d+) s/.exec(text(refused))?.[1]);
        expect(seconds).toBeGreaterThan(0);
        expect(seconds).toBeLessThanOrEqual(60);
        expect(echoCalls()).toBe(before + 3);
      },
    );

    it('counts perTool across callers, in both eras, and gives the caller its point back', async () => {
      const modern = await connect(runtime.url, 'modern', `198.51.100.1${fastPath ? 0 : 5}`);
      const legacy = await connect(runtime.url, 'legacy', `198.51.100.2${fastPath ? 0 : 5}`);
      const before = upstream.requests.filter(
        (r) => r.path === '/api/echo/items' && r.method === 'POST',
      ).length;
      expect((await modern.callTool({ name: 'echo_json', arguments: { name: 'a1' } })).isError).toBeFalsy();
      expect((await legacy.callTool({ name: 'echo_json', arguments: { name: 'a2' } })).isError).toBeFalsy();
      for (const client of [modern, legacy]) {
        const refused = await client.callTool({ name: 'echo_json', arguments: { name: 'a3' } });
        expect(refused.isError).toBe(true);
        expect(text(refused)).toMatch(
          /2 calls per hour for tool echo_json, across all callers \(config\.yaml rateLimits\.perTool\.echo_json\)/,
        );
        expect(text(refused)).toMatch(/Retry after \d+ s\./);
      }
      const after = upstream.requests.filter(
        (r) => r.path === '/api/echo/items' && r.method === 'POST',
      ).length;
      expect(after).toBe(before + 2);
      // The per-tool refusals did not spend the caller's per-caller points: 2 more calls still pass.
      for (let i = 0; i < 2; i++) {
        const ok = await modern.callTool({ name: 'echo_get', arguments: { id: `y${i}` } });
        expect(ok.isError, text(ok)).toBeFalsy();
      }
    });
  });
}

describe('the caller', () => {
  it('ignores X-Forwarded-For unless SVC_TRUST_PROXY=1', async () => {
    const runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-rate-9f8e7d6c' }),
      folderDir: folder.dir,
      logger: { log() {} },
    });
    runtimes.push(runtime);
    // Two "different" forwarded addresses, one real one: the same caller.
    const a = await connect(runtime.url, 'modern', '192.0.2.1');
    const b = await connect(runtime.url, 'modern', '192.0.2.2');
    for (let i = 0; i < 3; i++)
      expect((await a.callTool({ name: 'echo_get', arguments: { id: 'a' } })).isError).toBeFalsy();
    const refused = await b.callTool({ name: 'echo_get', arguments: { id: 'b' } });
    expect(text(refused)).toMatch(/^Rate limit reached/);
  });
});

describe("the upstream's own limit", () => {
  it.each(['modern', 'legacy'] as const)('passes a 429 Retry-After on to the client (%s)', async (era) => {
    const runtime = runtimes[0]!;
    const client = await connect(runtime.url, era, `100.64.0.${era === 'modern' ? 1 : 2}`);
    const result = await client.callTool({ name: 'status', arguments: { code: 429 } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /^Upstream returned HTTP 429 Too Many Requests \(the API asks to retry after 17 s\): slow down/,
    );
  });
});

describe('search mode', () => {
  it.each(['modern', 'legacy'] as const)('limits a tool called through call_tool (%s)', async (era) => {
    const searchFolder = await copyFixtureFolder(
      'fixtures/runtime/basic',
      `${upstream.url}/api`,
      (config) => `${config}discovery: search\nrateLimits:\n  perTool:\n    echo_get: 1/h\n`,
    );
    try {
      // A read, so call_tool runs it without asking the person.
      const file = `${searchFolder.dir}/Tools/echo_get.yaml`;
      await writeFile(
        file,
        (await readFile(file, 'utf8')).replace('readOnlyHint: false', 'readOnlyHint: true'),
      );
      const runtime = await startRuntime({
        env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-rate-9f8e7d6c' }),
        folderDir: searchFolder.dir,
        logger: { log() {} },
      });
      runtimes.push(runtime);
      const client = await connect(runtime.url, era, '192.0.2.50');
      const before = echoCalls();
      const first = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'echo_get', arguments: { id: 's1' } },
      });
      expect(first.isError, text(first)).toBeFalsy();
      const second = await client.callTool({
        name: 'call_tool',
        arguments: { name: 'echo_get', arguments: { id: 's2' } },
      });
      expect(second.isError).toBe(true);
      expect(text(second)).toMatch(
        /^Rate limit reached: this server allows 1 call per hour for tool echo_get/,
      );
      expect(echoCalls()).toBe(before + 1);
    } finally {
      await searchFolder.remove();
    }
  });
});
