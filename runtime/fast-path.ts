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
  isJsonContentType,
  PROTOCOL_VERSION_META_KEY,
  SERVER_INFO_META_KEY,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '@modelcontextprotocol/server';
import { isPlainObject } from '../core/is-plain-object.js';
import { CallCancel } from './call-cancel.js';
import type { ClientWatch } from './http/mcp-env.js';
import type { LegacySessions, Session } from './legacy-sessions.js';
import type { LoadedConfig } from './loaded-config.js';
import { META_TOOL_NAMES } from '../folder/discovery-mode.js';
import { type CallContext, callTool, type ToolCallDeps } from './tool-call.js';
import {
  CLIENT_CAPABILITIES_KEY,
  createListCache,
  JSON_HEADERS,
  type ListCache,
  MODERN_VERSION,
} from './fast-path-lists.js';

const CLIENT_INFO_KEY = 'io.modelcontextprotocol/clientInfo';
const LEGACY_VERSIONS = new Set(SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < '2026-'));

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
   * The answer, or undefined when the SDK must serve this request. `watchClient` tells when the
   * client has gone away (runtime/http/request-entry.ts); without it, the request's signal.
   */
  serve(
    request: Request,
    body: unknown,
    pathKey: string,
    context?: CallContext,
    watchClient?: () => ClientWatch,
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

/** The 2026 result as the SDK's codec stamps it: resultType "complete" and the server's identity. */
function stampModern(result: Record<string, unknown>, serverInfo: unknown): Record<string, unknown> {
  const meta = result._meta;
  if (meta === undefined)
    return { ...result, resultType: 'complete', _meta: { [SERVER_INFO_META_KEY]: serverInfo } };
  if (isPlainObject(meta) && meta[SERVER_INFO_META_KEY] === undefined)
    return { ...result, resultType: 'complete', _meta: { ...meta, [SERVER_INFO_META_KEY]: serverInfo } };
  return { ...result, resultType: 'complete' };
}

interface HotCall {
  deps: ToolCallDeps;
  lists: ListCache;
  rpc: RpcRequest;
  context: CallContext | undefined;
}

async function serveModern(
  call: HotCall,
  config: LoadedConfig,
  watchClient: () => ClientWatch,
): Promise<Response> {
  const { rpc } = call;
  const list = call.lists.modern(config);
  if (rpc.method === 'tools/list') return answer(rpc.id, (await list).result);
  const params = rpc.params!;
  let result: Record<string, unknown>;
  const watch = watchClient();
  try {
    result = (await callTool(
      config,
      call.deps,
      params.name as string,
      params.arguments as Record<string, unknown> | undefined,
      watch.signal,
      call.context,
    )) as unknown as Record<string, unknown>;
  } catch (error) {
    return errorAnswer(rpc.id, error);
  } finally {
    watch.done();
  }
  const { serverInfo } = await list;
  return answer(rpc.id, JSON.stringify(stampModern(result, serverInfo)));
}

async function serveSession(call: HotCall, session: Session): Promise<Response> {
  const { rpc } = call;
  const headers = { 'mcp-session-id': session.id };
  if (rpc.method === 'tools/list') return answer(rpc.id, await call.lists.legacy(session.config), headers);
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
    const answered = callTool(
      session.config,
      call.deps,
      params.name as string,
      params.arguments as Record<string, unknown> | undefined,
      abort,
      call.context,
    ).then(
      (result) => answer(rpc.id, JSON.stringify(result), headers),
      (error: unknown) => errorAnswer(rpc.id, error, headers),
    );
    return await Promise.race([answered, cancel]);
  } finally {
    session.busy--;
    if (session.cancels.get(rpc.id) === cancelled) session.cancels.delete(rpc.id);
  }
}

/** A 2026 request whose envelope and headers are exactly what the SDK's modern handler accepts. */
function modernHeadersMatch(request: Request, rpc: RpcRequest): boolean {
  if (!modernEnvelope(rpc.params?._meta)) return false;
  if (!headerIs(request, 'mcp-protocol-version', MODERN_VERSION)) return false;
  if (!headerIs(request, 'mcp-method', rpc.method)) return false;
  return rpc.method !== 'tools/call' || headerIs(request, 'mcp-name', rpc.params!.name as string);
}

/** The live 2025 session this request may be served on, with the headers its transport requires. */
function legacySession(
  request: Request,
  sessions: LegacySessions,
  pathKey: string,
  /** Who is asking: a session answers only the person who opened it. */
  principal: string | undefined,
): Session | undefined {
  const sid = request.headers.get('mcp-session-id');
  if (!sid) return undefined;
  const accept = request.headers.get('accept');
  if (!accept?.includes('application/json') || !accept.includes('text/event-stream')) return undefined;
  const version = request.headers.get('mcp-protocol-version');
  if (version !== null && !LEGACY_VERSIONS.has(version)) return undefined;
  return sessions.lookup(sid, pathKey, principal);
}

export function createFastPath(opts: FastPathOptions): FastPath {
  const { deps, sessions } = opts;
  const lists = createListCache(deps);
  let served = 0;
  return {
    served: () => served,
    serve(request, body, pathKey, context, watchClient) {
      const rpc = hotRequest(body);
      if (!rpc) return undefined;
      // The meta-tools of search mode may ask the person first: the SDK carries that round trip.
      if (rpc.method === 'tools/call' && META_TOOL_NAMES.has(rpc.params!.name as string)) return undefined;
      if (!isJsonContentType(request.headers.get('content-type'))) return undefined;
      const call: HotCall = { deps, lists, rpc, context };
      if (rpc.params?._meta !== undefined) {
        if (!modernHeadersMatch(request, rpc)) return undefined;
        served++;
        const watch = watchClient ?? (() => ({ signal: request.signal, done() {} }));
        return serveModern(call, opts.current(), watch);
      }
      const session = legacySession(request, sessions, pathKey, context?.principal);
      if (!session) return undefined;
      served++;
      return serveSession(call, session);
    },
  };
}
