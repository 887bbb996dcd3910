/**
 * The MCP routes' middleware through app.request(): no port, no Node objects (the entry falls
 * back to the Web request). Refusals carry no CORS headers, answers do; every answer names its
 * config commit; the body cap holds for a body with and without a Content-Length.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, createConfigStore, loadFolderDir, parseRuntimeEnv, type RuntimeApp } from '../index.js';
import { copyFixtureFolder, type TempFolder } from '../testing/index.js';

const ORIGIN = 'https://app.example.test';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: '127.0.0.1:3000',
  origin: ORIGIN,
};
let folder: TempFolder;
let runtime: RuntimeApp;

beforeAll(async () => {
  folder = await copyFixtureFolder('fixtures/runtime/basic', 'http://127.0.0.1:9/api');
  const env = parseRuntimeEnv({
    MCP_RUNTIME_PORT: '3000',
    SVC_UPSTREAM_SECRET: 'k',
    MCP_ALLOWED_ORIGINS: ORIGIN,
  });
  const store = createConfigStore((await loadFolderDir(folder.dir)).folder, { keep: env.configVersions });
  runtime = createApp({ store, env });
});
afterAll(async () => {
  await runtime?.close(0);
  await folder?.remove();
});

const post = (body: BodyInit, headers: Record<string, string> = {}, path = '/mcp') =>
  runtime.app.request(path, {
    method: 'POST',
    headers: { ...HEADERS, ...headers },
    body,
    duplex: 'half',
  } as RequestInit);

const LIST = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} });

describe('MCP routes', () => {
  it('answers a preflight for an allowed origin, with CORS headers and the config commit', async () => {
    const response = await runtime.app.request('/mcp', { method: 'OPTIONS', headers: HEADERS });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(response.headers.get('access-control-allow-methods')).toBe('GET, POST, DELETE, OPTIONS');
    expect(response.headers.get('svc-config-commit')).toMatch(/^sha256:/);
  });

  it('refuses another origin 403 in its own words, without CORS headers', async () => {
    const response = await post(LIST, { origin: 'https://evil.example.test' });
    expect(response.status).toBe(403);
    expect(((await response.json()) as { error: { message: string } }).error.message).toBe(
      'Forbidden: Origin not allowed',
    );
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('refuses a body over 4 MiB, declared or streamed, 413 without CORS headers', async () => {
    const declared = await post('{}', { 'content-length': String(4 * 1024 * 1024 + 1) });
    expect(declared.status).toBe(413);
    const big = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const streamed = await post(
      new ReadableStream<Uint8Array>({
        pull(controller) {
          if (sent++ < 8) controller.enqueue(big);
          else controller.close();
        },
      }),
    );
    expect(streamed.status).toBe(413);
    expect(streamed.headers.get('connection')).toBe('close');
    expect(streamed.headers.get('access-control-allow-origin')).toBeNull();
    expect(((await streamed.json()) as { error: { code: number } }).error.code).toBe(-32600);
    expect(sent).toBeLessThan(8);
  });

  it('answers a message nested too deep with CORS headers, an unknown server id without', async () => {
    const deep = `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":${'['.repeat(300)}${']'.repeat(300)}}`;
    const tooDeep = await post(deep);
    expect(tooDeep.status).toBe(200);
    expect(((await tooDeep.json()) as { error: { code: number } }).error.code).toBe(-32602);
    expect(tooDeep.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    const unknown = await post(LIST, {}, '/mcp/not-this-one');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('serves a request through the SDK, with CORS headers', async () => {
    const init = await post(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      }),
    );
    expect(init.status).toBe(200);
    expect(init.headers.get('mcp-session-id')).toBeTruthy();
    expect(init.headers.get('access-control-allow-origin')).toBe(ORIGIN);
    expect(init.headers.get('access-control-expose-headers')).toContain('svc-config-commit');
  });
});
