/**
 * The tools/call + tools/list hot path answers exactly what the SDK answers. Two runtimes
 * serve the same folder from the same upstream: one with the hot path, one with every request
 * through the SDK (fastPath: false). A corpus of valid and malformed requests of both eras —
 * wrong and missing headers, malformed envelopes, ids, params, sessions — goes to both, and
 * the status and the JSON-RPC message of each answer must be equal. The valid ones must have
 * been served by the hot path (its counter moves), the malformed ones by the SDK (it does not).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

const SECRET = 'sk-fastpath-0f9e8d7c';
let upstream: EchoUpstream;
let folder: TempFolder;
let hot: RunningRuntime;
let sdk: RunningRuntime;

beforeAll(async () => {
  upstream = await startEchoUpstream({ record: false });
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  const boot = (fastPath: boolean) =>
    startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET }),
      folderDir: folder.dir,
      fastPath,
      logger: { log() {} },
    });
  [hot, sdk] = await Promise.all([boot(true), boot(false)]);
});
afterAll(async () => {
  await Promise.all([hot?.close(), sdk?.close()]);
  await upstream?.close();
  await folder?.remove();
});

const ACCEPT = 'application/json, text/event-stream';
const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'diff', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

interface Case {
  name: string;
  headers: Record<string, string>;
  body: unknown;
  /** The hot path must answer this one itself (else: it must leave it to the SDK). */
  hot: boolean;
}

interface Seen {
  status: number;
  message: unknown;
  contentType: string;
  session: boolean;
}

async function send(runtime: RunningRuntime, c: Case, sessionId?: string): Promise<Seen> {
  // An empty value in a case means: leave the header out.
  const headers = Object.fromEntries(Object.entries(c.headers).filter(([, v]) => v !== ''));
  if (headers['mcp-session-id'] === 'SESSION' && sessionId) headers['mcp-session-id'] = sessionId;
  const response = await fetch(runtime.url, {
    method: 'POST',
    headers,
    body: typeof c.body === 'string' ? c.body : JSON.stringify(c.body),
  });
  const text = await response.text();
  const contentType = response.headers.get('content-type') ?? '';
  let message: unknown = null;
  if (contentType.includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: ') && l.length > 6)
      .at(-1);
    message = data ? JSON.parse(data.slice(6)) : null;
  } else if (text !== '') message = JSON.parse(text);
  return { status: response.status, message, contentType, session: response.headers.has('mcp-session-id') };
}

function modern(
  body: Record<string, unknown>,
  headers: Record<string, string> = {},
  isHot = false,
): Omit<Case, 'name'> {
  const method = String(body.method);
  const name = (body.params as { name?: unknown } | undefined)?.name;
  return {
    headers: {
      'content-type': 'application/json',
      accept: ACCEPT,
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(typeof name === 'string' ? { 'mcp-name': name } : {}),
      ...headers,
    },
    body,
    hot: isHot,
  };
}

const call = (name: string, args: unknown, extra: Record<string, unknown> = {}) => ({
  jsonrpc: '2.0',
  id: 11,
  method: 'tools/call',
  params: { name, arguments: args, _meta: META, ...extra },
});

const MODERN_CASES: Case[] = [
  { name: 'valid call', ...modern(call('echo_get', { id: 'abc' }), {}, true) },
  { name: 'valid call, string id', ...modern({ ...call('echo_get', { id: 's' }), id: 'req-1' }, {}, true) },
  { name: 'structured content', ...modern(call('structured', { q: 'v' }), {}, true) },
  { name: 'image content', ...modern(call('image', {}), {}, true) },
  { name: 'invalid arguments (isError)', ...modern(call('echo_json', { name: '', extra: 1 }), {}, true) },
  { name: 'upstream 500 (isError)', ...modern(call('status', { code: 500 }), {}, true) },
  { name: 'unknown tool', ...modern(call('no_such_tool', {}), {}, true) },
  { name: 'disabled tool', ...modern(call('hidden_delete', {}), {}, true) },
  {
    name: 'tools/list',
    ...modern({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: { _meta: META } }, {}, true),
  },
  {
    name: 'tools/list with cursor',
    ...modern(
      { jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 'x', _meta: META } },
      {},
      true,
    ),
  },
  {
    name: 'envelope without clientInfo',
    ...modern(
      call(
        'echo_get',
        { id: 'n' },
        {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: true } },
          },
        },
      ),
      {},
      true,
    ),
  },
  {
    name: 'no MCP-Protocol-Version header',
    ...modern(call('echo_get', { id: 'a' }), { 'mcp-protocol-version': '' }),
  },
  {
    name: 'MCP-Protocol-Version mismatch',
    ...modern(call('echo_get', { id: 'a' }), { 'mcp-protocol-version': '2025-11-25' }),
  },
  { name: 'no Mcp-Method header', ...modern(call('echo_get', { id: 'a' }), { 'mcp-method': '' }) },
  { name: 'Mcp-Method mismatch', ...modern(call('echo_get', { id: 'a' }), { 'mcp-method': 'tools/list' }) },
  { name: 'no Mcp-Name header', ...modern(call('echo_get', { id: 'a' }), { 'mcp-name': '' }) },
  { name: 'Mcp-Name mismatch', ...modern(call('echo_get', { id: 'a' }), { 'mcp-name': 'image' }) },
  {
    name: 'Mcp-Name as a base64 sentinel',
    ...modern(call('echo_get', { id: 'a' }), {
      'mcp-name': `=?base64?${Buffer.from('echo_get').toString('base64')}?=`,
    }),
  },
  // Fetch trims header values, so surrounding spaces never reach the server: served as usual.
  {
    name: 'header with spaces',
    ...modern(call('echo_get', { id: 'a' }), { 'mcp-method': ' tools/call ' }, true),
  },
  {
    name: 'envelope without capabilities',
    ...modern(
      call('echo_get', { id: 'a' }, { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } }),
    ),
  },
  {
    name: 'unsupported revision in envelope',
    ...modern(
      call(
        'echo_get',
        { id: 'a' },
        { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2099-01-01' } },
      ),
      { 'mcp-protocol-version': '2099-01-01' },
    ),
  },
  {
    name: 'malformed clientInfo',
    ...modern(
      call('echo_get', { id: 'a' }, { _meta: { ...META, 'io.modelcontextprotocol/clientInfo': 'me' } }),
    ),
  },
  {
    name: 'malformed capabilities',
    ...modern(
      call(
        'echo_get',
        { id: 'a' },
        {
          _meta: { ...META, 'io.modelcontextprotocol/clientCapabilities': { roots: { listChanged: 'yes' } } },
        },
      ),
    ),
  },
  { name: 'arguments an array', ...modern(call('echo_get', [1, 2])) },
  { name: 'name a number', ...modern({ ...call('echo_get', {}), params: { name: 5, _meta: META } }) },
  { name: 'id a fraction', ...modern({ ...call('echo_get', { id: 'a' }), id: 1.5 }) },
  // Integers beyond 2^53 are refused by the SDK's schema (not a safe integer): so by both.
  { name: 'id beyond 2^53', ...modern({ ...call('echo_get', { id: 'a' }), id: 2 ** 53 + 2 }) },
  { name: 'id -(2^53)', ...modern({ ...call('echo_get', { id: 'a' }), id: -(2 ** 53) }) },
  { name: 'id 2^53 - 1', ...modern({ ...call('echo_get', { id: 'a' }), id: 2 ** 53 - 1 }, {}, true) },
  // JSON.parse makes "__proto__" an own key; an object copy by assignment would make it the prototype.
  {
    name: 'top-level __proto__ argument',
    ...modern(call('echo_get', { id: 'a' })),
    body: `{"jsonrpc":"2.0","id":13,"method":"tools/call","params":{"name":"echo_get","arguments":{"__proto__":{"id":"polluted"}},"_meta":${JSON.stringify(META)}}}`,
  },
  {
    name: 'top-level __proto__ beside a valid argument',
    ...modern(call('echo_get', { id: 'a' })),
    body: `{"jsonrpc":"2.0","id":14,"method":"tools/call","params":{"name":"echo_get","arguments":{"id":"x","__proto__":{"trace":"t"}},"_meta":${JSON.stringify(META)}}}`,
  },
  { name: 'id null', ...modern({ ...call('echo_get', { id: 'a' }), id: null }) },
  { name: 'jsonrpc 1.0', ...modern({ ...call('echo_get', { id: 'a' }), jsonrpc: '1.0' }) },
  { name: 'extra member', ...modern({ ...call('echo_get', { id: 'a' }), extra: true }) },
  {
    name: 'tools/list with a numeric cursor',
    ...modern({ jsonrpc: '2.0', id: 4, method: 'tools/list', params: { cursor: 7, _meta: META } }),
  },
  { name: 'text/plain body', ...modern(call('echo_get', { id: 'a' }), { 'content-type': 'text/plain' }) },
];

const LEGACY_HEADERS = {
  'content-type': 'application/json',
  accept: ACCEPT,
  'mcp-session-id': 'SESSION',
  'mcp-protocol-version': '2025-11-25',
};
const legacyCall = (name: string, args: unknown, id: unknown = 21) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});

const LEGACY_CASES: Case[] = [
  { name: 'valid call', headers: LEGACY_HEADERS, body: legacyCall('echo_get', { id: 'abc' }), hot: true },
  {
    name: 'structured content',
    headers: LEGACY_HEADERS,
    body: legacyCall('structured', { q: 'v' }),
    hot: true,
  },
  {
    name: 'invalid arguments',
    headers: LEGACY_HEADERS,
    body: legacyCall('echo_json', { count: -1 }),
    hot: true,
  },
  { name: 'unknown tool', headers: LEGACY_HEADERS, body: legacyCall('no_such_tool', {}), hot: true },
  {
    name: 'tools/list',
    headers: LEGACY_HEADERS,
    body: { jsonrpc: '2.0', id: 22, method: 'tools/list', params: {} },
    hot: true,
  },
  {
    name: 'tools/list without params',
    headers: LEGACY_HEADERS,
    body: { jsonrpc: '2.0', id: 23, method: 'tools/list' },
    hot: true,
  },
  {
    // The SDK transport accepts a session request without the header (the negotiated version holds).
    name: 'no MCP-Protocol-Version header',
    headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '' },
    body: legacyCall('echo_get', { id: 'x' }),
    hot: true,
  },
  {
    name: 'unsupported MCP-Protocol-Version',
    headers: { ...LEGACY_HEADERS, 'mcp-protocol-version': '1999-01-01' },
    body: legacyCall('echo_get', { id: 'x' }),
    hot: false,
  },
  {
    name: 'Accept without text/event-stream',
    headers: { ...LEGACY_HEADERS, accept: 'application/json' },
    body: legacyCall('echo_get', { id: 'x' }),
    hot: false,
  },
  {
    name: 'text/plain body',
    headers: { ...LEGACY_HEADERS, 'content-type': 'text/plain' },
    body: legacyCall('echo_get', { id: 'x' }),
    hot: false,
  },
  {
    name: 'unknown session',
    headers: { ...LEGACY_HEADERS, 'mcp-session-id': 'no-such-session' },
    body: legacyCall('echo_get', { id: 'x' }),
    hot: false,
  },
  { name: 'arguments an array', headers: LEGACY_HEADERS, body: legacyCall('echo_get', ['x']), hot: false },
  {
    name: 'id a fraction',
    headers: LEGACY_HEADERS,
    body: legacyCall('echo_get', { id: 'x' }, 2.5),
    hot: false,
  },
  {
    name: 'id beyond 2^53',
    headers: LEGACY_HEADERS,
    body: legacyCall('echo_get', { id: 'x' }, 2 ** 53 + 2),
    hot: false,
  },
  {
    name: 'top-level __proto__ argument',
    headers: LEGACY_HEADERS,
    body: '{"jsonrpc":"2.0","id":24,"method":"tools/call","params":{"name":"echo_get","arguments":{"__proto__":{"id":"polluted"}}}}',
    hot: false,
  },
  {
    name: 'progress token in _meta',
    headers: LEGACY_HEADERS,
    body: {
      ...legacyCall('echo_get', { id: 'p' }),
      params: { name: 'echo_get', arguments: { id: 'p' }, _meta: { progressToken: 1 } },
    },
    hot: false,
  },
];

async function openSession(runtime: RunningRuntime): Promise<string> {
  const response = await fetch(runtime.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'diff', version: '1' } },
    }),
  });
  await response.text();
  return response.headers.get('mcp-session-id')!;
}

describe('hot path vs SDK, 2026-07-28 stateless', () => {
  it.each(MODERN_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = hot.hotPathServed();
    const [a, b] = [await send(hot, c), await send(sdk, c)];
    expect(a.status).toBe(b.status);
    expect(a.message).toEqual(b.message);
    expect(a.contentType).toBe(b.contentType);
    expect(hot.hotPathServed() - before).toBe(c.hot ? 1 : 0);
    expect(sdk.hotPathServed()).toBe(0);
  });
});

describe('hot path vs SDK, 2025-11-25 sessions', () => {
  let hotSession: string;
  let sdkSession: string;
  beforeAll(async () => {
    [hotSession, sdkSession] = await Promise.all([openSession(hot), openSession(sdk)]);
  });

  it.each(LEGACY_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const before = hot.hotPathServed();
    const [a, b] = [await send(hot, c, hotSession), await send(sdk, c, sdkSession)];
    expect(a.status).toBe(b.status);
    expect(a.message).toEqual(b.message);
    expect(a.session).toBe(b.session);
    expect(hot.hotPathServed() - before).toBe(c.hot ? 1 : 0);
    // The hot path answers 2025-era calls as plain JSON: no stream is needed for them.
    if (c.hot) expect(a.contentType).toBe('application/json');
  });
});
