/**
 * The hot path: `tools/call` and `tools/list` served without the SDK's per-request machinery
 * (a Server and transport built and closed per stateless request, several zod parses per
 * message, an SSE frame per 2025-era answer), for exactly the requests the SDK would serve
 * without complaint. Every check below is a cheap structural copy of an SDK rule; a request
 * that fails any of them, or that this file does not recognise, is NOT answered here: it falls
 * back to the SDK, which then answers it (or refuses it) in its own words. So the hot path can
 * only ever answer what the SDK would have answered, never refuse what the SDK would serve.
 *
 * Rules mirrored (node_modules/@modelcontextprotocol/server, v2.4):
 * - envelope: a JSON-RPC 2.0 request object (id a string or safe integer, no other members);
 *   arguments without an own `__proto__` key (the SDK's copy drops it);
 * - 2026-07-28 (createMcpHandler → classifyInboundRequest → validateStandardRequestHeaders):
 *   Content-Type application/json; a well-formed `_meta` envelope claiming 2026-07-28;
 *   MCP-Protocol-Version and Mcp-Method headers present and equal to the body; Mcp-Name equal
 *   to params.name for tools/call; no client capability is required for these methods; the
 *   SDK checks `Mcp-Param-*` headers only for McpServer tools (x-mcp-header), never for the
 *   runtime's low-level Server, so there are none to check here;
 * - 2025-era sessions (WebStandardStreamableHTTPServerTransport.handlePostRequest): Accept
 *   naming both application/json and text/event-stream; Content-Type application/json; a live
 *   session on this path; MCP-Protocol-Version absent or a supported pre-2026 revision;
 * - params as the SDK's CallToolRequestParams / PaginatedRequestParams schemas allow;
 * - answers: `{result, jsonrpc, id}`; a thrown error becomes `{jsonrpc, id, error}` with its
 *   code (-32603 when it has none) at HTTP 200; 2026 results get resultType "complete" and the
 *   server identity in `_meta`, as the SDK's 2026 codec stamps them; tools/list answers are
 *   produced once per config version by the SDK itself and replayed;
 * - cancellation: a 2026 call ends when its HTTP request is aborted; a 2025 call ends on
 *   `notifications/cancelled` for its id (LegacySessions calls the session's cancel hook) and
 *   its HTTP answer is an empty event stream, i.e. no response, as the SDK leaves it.
 */
import {
  createMcpHandler,
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { ServerResponse } from 'node:http';
import { isPlainObject } from '../core/is-plain-object.js';
import { CallCancel, type CancelSignal } from './call-cancel.js';
import type { LegacySessions, Session } from './legacy-sessions.js';
import type { LoadedConfig } from './loaded-config.js';
import { META_TOOL_NAMES } from '../folder/discovery-mode.js';
import { buildMcpServer } from './mcp-server.js';
import { type CallContext, callTool, type ToolCallDeps } from './tool-call.js';

const MODERN_VERSION = '2026-07-28';
const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const CLIENT_CAPABILITIES_KEY = 'io.modelcontextprotocol/clientCapabilities';
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < '2026-'));
const JSON_HEADERS = { 'content-type': 'application/json' };

type RequestId = string | number;
interface RpcRequest {
  id: RequestId;
  method: 'tools/call' | 'tools/list';
  params: Record<string, unknown> | undefined;
}

export interface FastPathOptions {
  current: () => LoadedConfig;
  sessions: LegacySessions;
  deps: ToolCallDeps;
}

export interface FastPath {
  /**
   * The answer, or undefined when the SDK must serve this request. `outgoing`, the Node answer
   * when there is one, tells when the client has gone away without an AbortSignal per request.
   */
  serve(
    request: Request,
    body: unknown,
    pathKey: string,
    outgoing?: ServerResponse,
    context?: CallContext,
  ): Promise<Response> | undefined;
  /** Requests answered here so far (observability, tests). */
  served(): number;
}

/** A JSON-RPC 2.0 request for one of the two hot methods, with nothing the schemas would refuse. */
function hotRequest(body: unknown): RpcRequest | undefined {
  if (!isPlainObject(body)) return undefined;
  const { jsonrpc, id, method, params } = body;
  if (jsonrpc !== '2.0' || (method !== 'tools/call' && method !== 'tools/list')) return undefined;
  // The SDK's schema takes safe integers only: an id beyond 2^53 is its to refuse (HTTP 400).
  if (typeof id !== 'string' && !(typeof id === 'number' && Number.isSafeInteger(id))) return undefined;
  for (const key in body) {
    if (key !== 'jsonrpc' && key !== 'id' && key !== 'method' && key !== 'params') return undefined;
  }
  if (params !== undefined && !isPlainObject(params)) return undefined;
  if (params) {
    for (const key in params) {
      if (key === '_meta') continue;
      if (method === 'tools/call' ? key !== 'name' && key !== 'arguments' : key !== 'cursor')
        return undefined;
    }
    if (method === 'tools/call') {
      if (typeof params.name !== 'string') return undefined;
      if (params.arguments !== undefined && !isPlainObject(params.arguments)) return undefined;
      // JSON.parse makes a "__proto__" key an own property; the SDK's schema copy drops it. The
      // SDK serves such a call, so both paths see the same arguments.
      if (params.arguments !== undefined && Object.hasOwn(params.arguments, '__proto__')) return undefined;
    } else if (params.cursor !== undefined && typeof params.cursor !== 'string') return undefined;
  } else if (method === 'tools/call') return undefined;
  return { id, method, params };
}

/** Values of a capability map the 2026 schema accepts without a doubt: plain objects all the way to booleans. */
function plainCapabilities(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  for (const key in value) {
    const entry = value[key];
    if (key === 'roots') {
      if (!isPlainObject(entry)) return false;
      for (const k in entry) if (k !== 'listChanged' || typeof entry[k] !== 'boolean') return false;
    } else if (
      key === 'sampling' ||
      key === 'elicitation' ||
      key === 'experimental' ||
      key === 'extensions'
    ) {
      if (!isPlainObject(entry)) return false;
      for (const k in entry) if (!isPlainObject(entry[k])) return false;
    } else return false;
  }
  return true;
}

/** A 2026-07-28 `_meta` envelope the SDK would accept as it stands; anything unusual → SDK. */
function modernEnvelope(meta: unknown): boolean {
  if (!isPlainObject(meta)) return false;
  if (meta[PROTOCOL_VERSION_META_KEY] !== MODERN_VERSION) return false;
  for (const key in meta) {
    if (key === PROTOCOL_VERSION_META_KEY) continue;
    if (key === CLIENT_CAPABILITIES_KEY) {
      if (!plainCapabilities(meta[key])) return false;
    } else if (key === CLIENT_INFO_KEY) {
      const info = meta[key];
      if (!isPlainObject(info) || typeof info.name !== 'string' || typeof info.version !== 'string')
        return false;
      for (const k in info) if (k !== 'name' && k !== 'version') return false;
    } else return false;
  }
  return CLIENT_CAPABILITIES_KEY in meta;
}

/** A header exactly equal to `expected`, with no surrounding whitespace for the SDK to strip. */
function headerIs(request: Request, name: string, expected: string): boolean {
  return request.headers.get(name) === expected;
}

/**
 * Aborted when the client goes away before its answer is out: the Node answer closing
 * unfinished, as @hono/node-server decides for request.signal, which would cost an
 * AbortController per request. Without a Node answer (app.request), request.signal itself.
 */
function clientGone(
  request: Request,
  outgoing: ServerResponse | undefined,
): { signal: CancelSignal; done(): void } {
  if (!outgoing) return { signal: request.signal, done() {} };
  const cancel = new CallCancel();
  const onClose = () => {
    if (!outgoing.writableFinished) cancel.abort(new Error('client went away'));
  };
  if (outgoing.destroyed) onClose();
  outgoing.once('close', onClose);
  return { signal: cancel, done: () => outgoing.off('close', onClose) };
}

function answer(id: RequestId, resultJson: string, extraHeaders?: Record<string, string>): Response {
  return new Response(`{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`, {
    status: 200,
    headers: extraHeaders ? { ...JSON_HEADERS, ...extraHeaders } : JSON_HEADERS,
  });
}

function errorAnswer(id: RequestId, error: unknown, extraHeaders?: Record<string, string>): Response {
  const e = error as { code?: unknown; message?: unknown; data?: unknown };
  const code = Number.isSafeInteger(e?.code) ? (e.code as number) : -32603;
  const body = {
    jsonrpc: '2.0',
    id,
    error: {
      // The 2026 codec writes the retired -32002 (resource not found) as -32602; so does this.
      code: code === -32002 ? -32602 : code,
      message: typeof e?.message === 'string' ? e.message : 'Internal error',
      ...(e?.data !== undefined ? { data: e.data } : {}),
    },
  };
  return new Response(JSON.stringify(body), {
    status: 200,
    headers: extraHeaders ? { ...JSON_HEADERS, ...extraHeaders } : JSON_HEADERS,
  });
}

/** The SDK's answer to tools/list for one config version and era: produced once, by the SDK. */
interface ListCache {
  modern?: Promise<{ result: string; serverInfo: unknown }>;
  legacy?: Promise<string>;
}

export function createFastPath(opts: FastPathOptions): FastPath {
  const { deps, sessions } = opts;
  const lists = new WeakMap<LoadedConfig, ListCache>();
  const cacheOf = (config: LoadedConfig): ListCache => {
    let cache = lists.get(config);
    if (!cache) {
      cache = {};
      lists.set(config, cache);
    }
    return cache;
  };

  const modernList = (config: LoadedConfig) => {
    const cache = cacheOf(config);
    cache.modern ??= (async () => {
      const handler = createMcpHandler(() => buildMcpServer(config, deps), { legacy: 'reject' });
      try {
        const envelope = { [PROTOCOL_VERSION_META_KEY]: MODERN_VERSION, [CLIENT_CAPABILITIES_KEY]: {} };
        const response = await handler.fetch(
          new Request('http://svc.internal/mcp', {
            method: 'POST',
            headers: { ...JSON_HEADERS, 'mcp-protocol-version': MODERN_VERSION, 'mcp-method': 'tools/list' },
          }),
          { parsedBody: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: { _meta: envelope } } },
        );
        const message = (await response.json()) as { result: { _meta?: Record<string, unknown> } };
        return {
          result: JSON.stringify(message.result),
          serverInfo: message.result._meta?.[SERVER_INFO_META_KEY],
        };
      } finally {
        await handler.close();
      }
    })();
    return cache.modern;
  };

  const legacyList = (config: LoadedConfig) => {
    const cache = cacheOf(config);
    cache.legacy ??= (async () => {
      const server = buildMcpServer(config, deps);
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
      });
      await server.connect(transport);
      try {
        const response = await transport.handleRequest(
          new Request('http://svc.internal/mcp', {
            method: 'POST',
            headers: { ...JSON_HEADERS, accept: 'application/json, text/event-stream' },
          }),
          { parsedBody: { jsonrpc: '2.0', id: 0, method: 'tools/list', params: {} } },
        );
        return JSON.stringify(((await response.json()) as { result: unknown }).result);
      } finally {
        await server.close();
      }
    })();
    return cache.legacy;
  };

  async function serveModern(
    request: Request,
    rpc: RpcRequest,
    outgoing: ServerResponse | undefined,
    context: CallContext | undefined,
  ): Promise<Response> {
    const config = opts.current();
    const list = modernList(config);
    if (rpc.method === 'tools/list') return answer(rpc.id, (await list).result);
    const params = rpc.params!;
    let result: Record<string, unknown>;
    const gone = clientGone(request, outgoing);
    try {
      result = (await callTool(
        config,
        deps,
        params.name as string,
        params.arguments as Record<string, unknown> | undefined,
        gone.signal,
        context,
      )) as unknown as Record<string, unknown>;
    } catch (error) {
      return errorAnswer(rpc.id, error);
    } finally {
      gone.done();
    }
    const { serverInfo } = await list;
    const meta = result._meta;
    const stamped =
      meta === undefined
        ? { ...result, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: serverInfo } }
        : isPlainObject(meta) && meta[SERVER_INFO_META_KEY] === undefined
          ? { ...result, resultType: 'complete', _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } }
          : { ...result, resultType: 'complete' };
    return answer(rpc.id, JSON.stringify(stamped));
  }

  async function serveSession(
    session: Session,
    rpc: RpcRequest,
    context: CallContext | undefined,
  ): Promise<Response> {
    const headers = { 'mcp-session-id': session.id };
    if (rpc.method === 'tools/list') return answer(rpc.id, await legacyList(session.config), headers);
    const params = rpc.params!;
    const abort = new CallCancel();
    let cancelled!: () => void;
    const cancel = new Promise<Response>((resolve) => {
      cancelled = () => {
        abort.abort('cancelled');
        // No answer to a cancelled request: an event stream that ends without an event.
        resolve(
          new Response('', { status: 200, headers: { 'content-type': 'text/event-stream', ...headers } }),
        );
      };
    });
    session.cancels.set(rpc.id, cancelled);
    session.busy++;
    try {
      const call = callTool(
        session.config,
        deps,
        params.name as string,
        params.arguments as Record<string, unknown> | undefined,
        abort,
        context,
      ).then(
        (result) => answer(rpc.id, JSON.stringify(result), headers),
        (error: unknown) => errorAnswer(rpc.id, error, headers),
      );
      return await Promise.race([call, cancel]);
    } finally {
      session.busy--;
      if (session.cancels.get(rpc.id) === cancelled) session.cancels.delete(rpc.id);
    }
  }

  let served = 0;
  return {
    served: () => served,
    serve(request, body, pathKey, outgoing, context) {
      const rpc = hotRequest(body);
      if (!rpc) return undefined;
      // The meta-tools of search mode may ask the person first: the SDK carries that round trip.
      if (rpc.method === 'tools/call' && META_TOOL_NAMES.has(rpc.params!.name as string)) return undefined;
      if (!isJsonContentType(request.headers.get('content-type'))) return undefined;
      const meta = rpc.params?._meta;
      if (meta !== undefined) {
        if (!modernEnvelope(meta)) return undefined;
        if (!headerIs(request, 'mcp-protocol-version', MODERN_VERSION)) return undefined;
        if (!headerIs(request, 'mcp-method', rpc.method)) return undefined;
        if (rpc.method === 'tools/call' && !headerIs(request, 'mcp-name', rpc.params!.name as string)) {
          return undefined;
        }
        served++;
        return serveModern(request, rpc, outgoing, context);
      }
      const sid = request.headers.get('mcp-session-id');
      if (!sid) return undefined;
      const accept = request.headers.get('accept');
      if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
      const version = request.headers.get('mcp-protocol-version');
      if (version !== null && !LEGACY_VERSIONS.has(version)) return undefined;
      const session = sessions.lookup(sid, pathKey, context?.principal);
      if (!session) return undefined;
      served++;
      return serveSession(session, rpc, context);
    },
  };
}
