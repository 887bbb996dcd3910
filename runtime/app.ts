/**
 * The Hono app: /healthz, /readyz, and MCP at /mcp and /mcp/{serverId}. Modern (2026-07-28)
 * requests are served statelessly by the SDK's createMcpHandler from the newest config;
 * 2025-era requests go to LegacySessions. Origin/Host checks run before anything else, and
 * no request, however malformed, can take the process down (errors become 4xx/5xx answers).
 * No listen, no process.env: startRuntime does the I/O.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hkdfSync, randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  createMcpHandler,
  createRequestStateCodec,
  isLegacyRequest,
  legacyStatelessFallback,
  readRequestBody,
} from '@modelcontextprotocol/server';
import { Hono } from 'hono';
import { configCommit, stampCommit } from './config-commit.js';
import { createInboundGate } from './auth/inbound-gate.js';
import { createOAuthFacade } from './auth/oauth-facade.js';
import { createSealer } from './auth/seal.js';
import { attachCallContext, attachedCallContext } from './call-context.js';
import { createFastPath } from './fast-path.js';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';
import { jsonRpcError, LegacySessions } from './legacy-sessions.js';
import type { ConfigStore } from './config-store.js';
import type { RuntimeEnv } from './env.js';
import type { LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';
import { buildMcpServer } from './mcp-server.js';
import type { RuntimeMetrics, RuntimeMetricsOptions } from './metrics.js';
import { folderDigest } from './sync/snapshot-folder.js';
import { buildOriginPolicy, checkOrigin } from './origin-policy.js';
import { callerOf, createRateLimits } from './rate-limit.js';
import { createRedactor } from './redact.js';
import type { ExecutionLog } from './execution-log.js';
import { createSessionTokens } from './session-token.js';
import type { RequestSpan, Tracing } from './tracing.js';
import type { CallContext, ToolCallDeps } from './tool-call.js';
import { basicCredentials } from './upstream-request.js';
import { fetchTransport, nodeHttpTransport } from './upstream-transport.js';

export interface CreateAppOptions {
  store: ConfigStore;
  env: RuntimeEnv;
  fetch?: typeof fetch;
  now?: () => number;
  logger?: Logger;
  /** Idle time after which a 2025-11-25 session expires (default 30 min). */
  sessionIdleMs?: number;
  /** Cap on open legacy sessions (default 10,000). */
  maxSessions?: number;
  /** Cap on open legacy sessions opened from one client address (default 1,000). */
  maxSessionsPerClient?: number;
  /** The port actually listened on, when env.port was 0 (same-origin checks need it). */
  listenPort?: number;
  /**
   * Serve tools/call and tools/list on the hot path (runtime/fast-path.ts; default true).
   * false sends every request through the SDK: the path the benchmark compares against.
   */
  fastPath?: boolean;
  /** /readyz answers 503 until this is true (sync mode: the first poll has settled). */
  ready?: () => boolean;
  /** The ETag of the synced snapshot being served, for svc_config_info. */
  syncEtag?: () => string | undefined;
  /**
   * The config sync's health for /readyz (startRuntime, when SVC_SYNC_URL is set): not ready
   * while the runtime has not reached the control service for too long.
   */
  syncHealth?: () => SyncHealth;
  /** OpenTelemetry tracing (OTEL_*), created and shut down by startRuntime; absent: none. */
  tracing?: Tracing;
  /**
   * Makes the Prometheus series (runtime/metrics.ts createRuntimeMetrics; startRuntime passes it
   * unless SVC_METRICS=0). Given as a factory so this file loads no Node-only metrics library.
   */
  metrics?: (options: RuntimeMetricsOptions) => RuntimeMetrics;
  /** One JSON line per tool call (SVC_EXECUTION_LOG), opened and closed by startRuntime. */
  executionLog?: ExecutionLog;
}

export interface RuntimeApp {
  app: Hono;
  /** Stops taking new MCP requests, waits for in-flight ones (up to graceMs), closes sessions. */
  close(graceMs?: number): Promise<void>;
  /** Open legacy sessions (observability, tests). */
  sessionCount(): number;
  /** Requests answered on the tools/call + tools/list hot path so far. */
  hotPathServed(): number;
  /** The Prometheus series of this app (undefined with SVC_METRICS=0). */
  metrics?: RuntimeMetrics;
}

export interface SyncHealth {
  ok: boolean;
  /** ISO time of the last poll that reached the control service (or of boot, before the first). */
  lastSuccess: string;
  /** Polls failed since the last success (the reasons are in the log, not on this open endpoint). */
  consecutiveFailures: number;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;

function confirmationKey(sessionSecret: Uint8Array | undefined): Uint8Array {
  if (!sessionSecret) return randomBytes(32);
  return new Uint8Array(hkdfSync('sha256', sessionSecret, new Uint8Array(0), 'svc confirmations', 32));
}
const noopLogger: Logger = { log() {} };

export function createApp(opts: CreateAppOptions): RuntimeApp {
  const { store, env } = opts;
  const now = opts.now ?? (() => performance.timeOrigin + performance.now());
  // basic auth sends base64("user:secret"), which contains no encoding of the secret alone.
  const basicPair = env.upstreamSecret ? basicCredentials(env.upstreamSecret, env.upstreamUser) : undefined;
  const oauthSecrets = Object.entries(env.oauthClients ?? {})
    .filter(([name]) => name.includes('SECRET'))
    .map(([, value]) => value);
  const redact = createRedactor([env.upstreamSecret, basicPair, ...oauthSecrets]);
  const logger = opts.logger ?? noopLogger;
  const deps: ToolCallDeps = {
    transport: opts.fetch ? fetchTransport(opts.fetch) : nodeHttpTransport,
    logger,
    redact,
    timeoutMs: env.upstreamTimeoutMs,
    maxResponseBytes: env.maxResponseBytes,
    now: () => performance.now(),
    ...(env.upstreamSecret ? { secret: env.upstreamSecret } : {}),
    ...(env.upstreamUser ? { user: env.upstreamUser } : {}),
    // A process-local key, or with SVC_SESSION_SECRET one every replica shares: any replica then
    // takes the answer to a confirmation another one asked for.
    confirmations: createRequestStateCodec({ key: confirmationKey(env.sessionSecret), ttlSeconds: 600 }),
    limits: createRateLimits(),
  };
  const digests = new WeakMap<LoadedConfig, string>();
  /** The served folder's identity in metrics and the execution log: a digest of what it serves. */
  const commitOf = (config: LoadedConfig): string => {
    let commit = digests.get(config);
    if (commit === undefined) {
      commit = folderDigest(config.folder).slice(0, 12);
      digests.set(config, commit);
    }
    return commit;
  };
  const metrics = opts.metrics?.({
    server: store.current().serverId,
    ...(env.metricsToken ? { token: env.metricsToken } : {}),
    configInfo: () => ({ commit: commitOf(store.current()), etag: opts.syncEtag?.() ?? '' }),
    sessions: () => sessions.size,
  });
  const executionLog = opts.executionLog;
  if (metrics || executionLog) {
    deps.observe = (record, args, result, loaded) => {
      metrics?.call(record);
      executionLog?.record(record, commitOf(loaded), args, result);
    };
  }
  const reject = metrics ? (reason: string) => metrics.rejected(reason) : () => undefined;
  const tracing = opts.tracing;
  if (tracing)
    deps.aroundUpstream = (tool, request, context, send) =>
      tracing.upstream(tool, request, context?.traceparent, send);
  // Calls served by the SDK (not the hot path) find their request's caller here.
  const requestContext = new AsyncLocalStorage<CallContext>();
  deps.context = () => requestContext.getStore();
  const policy = buildOriginPolicy({
    listenHost: env.host,
    port: opts.listenPort ?? env.port,
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
    ...(env.allowedOrigins ? { allowedOrigins: env.allowedOrigins } : {}),
  });
  const onerror = (error: Error) => logger.log('warn', 'mcp_error', { message: redact(error.message) });
  const factory = () => buildMcpServer(store.current(), deps);
  const modern = createMcpHandler(factory, { legacy: 'reject', onerror, maxRequestBodySize: MAX_BODY_BYTES });
  const sessions = new LegacySessions({
    build: (config) => buildMcpServer(config, deps),
    current: () => store.current(),
    stateless: legacyStatelessFallback(factory, onerror, { maxRequestBodySize: MAX_BODY_BYTES }),
    idleMs: opts.sessionIdleMs ?? 30 * 60 * 1000,
    maxSessions: opts.maxSessions ?? 10_000,
    maxSessionsPerClient: opts.maxSessionsPerClient ?? 1_000,
    now,
    logger,
    // SVC_SESSION_SECRET: signed session ids any replica holding the session's config can serve.
    ...(env.sessionSecret
      ? {
          tokens: createSessionTokens(env.sessionSecret, env.sessionMaxAgeSec),
          findConfig: (digest: string) => store.find(digest),
        }
      : {}),
  });
  const fast =
    opts.fastPath === false ? undefined : createFastPath({ current: () => store.current(), sessions, deps });
  const unsubscribe = store.onSwap((config, previous) => {
    logger.log('info', 'config_swap', {
      from: previous.version,
      to: config.version,
      tools: config.toolList.length,
    });
    // Modern clients listening on subscriptions/listen re-fetch; 2025 sessions keep their pinned version.
    modern.notify.toolsChanged();
    modern.notify.promptsChanged();
    modern.notify.resourcesChanged();
  });

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;

  const app = new Hono();
  app.onError((error, c) => {
    logger.log('error', 'request_failed', {
      path: c.req.path,
      message: redact(String(error?.message ?? error)),
    });
    return c.json({ error: 'internal error' }, 500);
  });
  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', (c) => {
    if (closing) return c.json({ status: 'closing' }, 503);
    if (opts.ready && !opts.ready()) return c.json({ status: 'starting' }, 503);
    const config = store.current();
    const sync = opts.syncHealth?.();
    return c.json(
      {
        status: sync && !sync.ok ? 'sync_stale' : 'ready',
        serverId: config.serverId,
        configVersion: config.version,
        tools: config.toolList.length,
        ...(sync ? { sync } : {}),
      },
      sync && !sync.ok ? 503 : 200,
    );
  });
  if (metrics) {
    app.get('/metrics', (c) => metrics.respond(c.req.header('authorization')));
  }

  const serveMcp = async (
    request: Request,
    pathId: string | undefined,
    incoming: IncomingMessage | undefined,
    outgoing: ServerResponse | undefined,
  ): Promise<Response> => {
    const decision = checkOrigin(
      policy,
      request.headers.get('origin') ?? undefined,
      request.headers.get('host') ?? undefined,
    );
    if (!decision.ok) {
      logger.log('warn', 'origin_refused', { reason: decision.reason, path: new URL(request.url).pathname });
      reject('origin');
      return jsonRpcError(403, -32000, `Forbidden: ${decision.reason}`);
    }
    const cors = decision.corsOrigin;
    if (request.method === 'OPTIONS') return finish(new Response(null, { status: 204 }), cors, true);
    if (closing) {
      reject('closing');
      return jsonRpcError(503, -32000, 'Server is shutting down');
    }
    let parsedBody: unknown;
    let forward = request;
    if (request.method === 'POST') {
      const read = incoming
        ? await readIncomingBody(incoming, MAX_BODY_BYTES)
        : await readRequestBody(request, MAX_BODY_BYTES);
      if (read.tooLarge) {
        // Not another byte is read; the connection is closed once the answer is out.
        reject('too_large');
        return jsonRpcError(413, -32600, 'Request body too large', { connection: 'close' });
      }
      try {
        parsedBody = JSON.parse(read.text);
      } catch {
        // Let the SDK answer the parse error in its own words, from an unread copy of the body.
        forward = new Request(request.url, { method: 'POST', headers: request.headers, body: read.text });
      }
      if (exceedsJsonDepth(parsedBody)) {
        reject('too_deep');
        return tooDeep(parsedBody, cors);
      }
    }
    const claim = envelopeClaim(parsedBody);
    const loaded = store.current();
    // What this request's tool calls carry (auth gate, forwardHeaders); the SDK path finds it by request.
    let call = attachedCallContext(request);
    if (!call && loaded.forwardHeaders) call = { headers: forward.headers };
    if (call) attachCallContext(forward, call);
    // Another server id is 404 — except for a 2025 session opened there before a swap renamed the
    // server: LegacySessions checks that the session belongs to this path.
    const serverId = loaded.serverId;
    if (pathId !== undefined && pathId !== serverId && (claim || !forward.headers.get('mcp-session-id'))) {
      reject('unknown_server');
      return jsonRpcError(404, -32000, `No MCP server with id "${pathId}" here`);
    }
    // One context per request: the auth gate's (user token, headers) gains the caller and the trace.
    const context: CallContext = Object.assign(call ?? {}, {
      caller: callerOf(
        call?.principal,
        incoming?.socket.remoteAddress,
        env.trustProxy ? request.headers.get('x-forwarded-for') : undefined,
        env.trustProxy,
      ),
    });
    attachCallContext(forward, context);
    const parent = request.headers.get('traceparent') ?? metaTraceparent(parsedBody);
    let span: RequestSpan | undefined;
    if (tracing) {
      span = tracing.startRequest(spanName(parsedBody), parent ?? undefined, { 'mcp.server.id': serverId });
      context.traceparent = span.traceparent;
      context.traceId = span.traceId;
    } else if (parent) {
      const traceId = traceIdOf(parent);
      if (traceId) context.traceId = traceId;
    }
    const respond = async (): Promise<Response> => {
      const hot =
        parsedBody !== undefined
          ? fast?.serve(forward, parsedBody, pathId ?? '', outgoing, context)
          : undefined;
      if (hot) return finish(await hot, cors, false);
      return requestContext.run(context, () => serveSdk(forward, parsedBody, claim, pathId, incoming, cors));
    };
    if (!span) return respond();
    try {
      const response = await respond();
      span.end(response.status);
      return response;
    } catch (error) {
      span.end(500);
      throw error;
    }
  };

  const serveSdk = async (
    forward: Request,
    parsedBody: unknown,
    claim: boolean,
    pathId: string | undefined,
    incoming: IncomingMessage | undefined,
    cors: string | undefined,
  ): Promise<Response> => {
    const legacy = claim
      ? false
      : forward.headers.get('mcp-session-id') && !isModernHeader(forward)
        ? true
        : parsedBody !== undefined
          ? await isLegacyRequest(forward, parsedBody)
          : await isLegacyRequest(forward);
    const response = legacy
      ? await sessions.handle(forward, pathId ?? '', parsedBody, incoming?.socket.remoteAddress ?? '')
      : await modern.fetch(forward, parsedBody !== undefined ? { parsedBody } : undefined);
    // fastPath: false is the path as it was before the hot path, answers re-read included (benchmarks).
    return opts.fastPath === false ? finishBuffered(response, cors) : finish(response, cors, false);
  };

  const track = async (request: Request, pathId: string | undefined, env: unknown): Promise<Response> => {
    const node = env as { incoming?: IncomingMessage; outgoing?: ServerResponse } | undefined;
    inFlight++;
    try {
      const response = await serveMcp(request, pathId, node?.incoming, node?.outgoing);
      // A session's answer comes from the config it started with; anything else from the newest.
      const sid = response.headers.get('mcp-session-id') ?? request.headers.get('mcp-session-id');
      const served = (sid ? sessions.configOf(sid) : undefined) ?? store.current();
      return stampCommit(response, configCommit(served));
    } finally {
      inFlight--;
      if (inFlight === 0 && drained) drained();
    }
  };
  // Inbound auth (runtime/auth/): the OAuth facade's routes, and the gate in front of /mcp.
  const facade =
    env.oauthKey && env.publicUrl
      ? createOAuthFacade({
          env: { ...env, publicUrl: env.publicUrl, oauthKey: env.oauthKey },
          store,
          sealer: createSealer(env.oauthKey, env.publicUrl, now),
          logger,
          now,
          ...(opts.fetch ? { fetch: opts.fetch } : {}),
        })
      : undefined;
  facade?.mount(app);
  const gate = createInboundGate({ env, store, facade, logger, now });
  if (gate) {
    app.use('/mcp', gate);
    app.use('/mcp/*', gate);
  }
  // @hono/node-server puts the Node request and answer in env: the body is read straight off
  // the socket, and the answer closing early tells the hot path its client has gone.
  app.all('/mcp', (c) => track(c.req.raw, undefined, c.env));
  app.all('/mcp/:serverId', (c) => track(c.req.raw, c.req.param('serverId'), c.env));

  return {
    app,
    sessionCount: () => sessions.size,
    hotPathServed: () => fast?.served() ?? 0,
    ...(metrics ? { metrics } : {}),
    async close(graceMs = 10_000) {
      if (closing) return;
      closing = true;
      unsubscribe();
      if (inFlight > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, graceMs);
          timer.unref();
          drained = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
      await sessions.close();
      await modern.close();
    },
  };
}

/**
 * Reads a Node request body as text, stopping as soon as more than `max` bytes have arrived:
 * a chunked body (no Content-Length) is never held whole. Past the limit the socket is left
 * unread; the 413 answer closes the connection.
 */
function readIncomingBody(
  incoming: IncomingMessage,
  max: number,
): Promise<{ tooLarge: true } | { tooLarge: false; text: string }> {
  if (Number(incoming.headers['content-length'] ?? 0) > max) return Promise.resolve({ tooLarge: true });
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const done = () => {
      incoming.off('data', onData);
      incoming.off('end', onEnd);
      incoming.off('error', onError);
    };
    const onData = (chunk: Buffer) => {
      received += chunk.length;
      if (received > max) {
        done();
        incoming.pause();
        resolve({ tooLarge: true });
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      done();
      resolve({
        tooLarge: false,
        text: (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)).toString('utf8'),
      });
    };
    const onError = (error: Error) => {
      done();
      reject(error);
    };
    incoming.on('data', onData);
    incoming.on('end', onEnd);
    incoming.on('error', onError);
  });
}

/** A message nested past MAX_JSON_DEPTH, refused before anything recursive touches it. */
function tooDeep(body: unknown, cors: string | undefined): Response {
  const message = body as { id?: unknown; method?: unknown };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const text = `Invalid params: the message nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels, the limit`;
  return finish(jsonRpcError(id === null ? 400 : 200, -32602, text, undefined, id), cors, false);
}

/**
 * Era fast paths, so the hot path does not classify each request twice (the SDK's modern
 * handler classifies again): a body carrying the 2026 `_meta` envelope claim is modern (the
 * SDK's own rule: isLegacyRequest is false for it), and a claim-less request on an open 2025
 * session is legacy. Everything else goes through isLegacyRequest itself.
 */
function envelopeClaim(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: unknown } }).params?._meta;
  return typeof meta === 'object' && meta !== null && 'io.modelcontextprotocol/protocolVersion' in meta;
}

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a W3C traceparent, when it is one (for the execution log, tracing off). */
function traceIdOf(traceparent: string): string | undefined {
  return TRACEPARENT.exec(traceparent.trim())?.[1];
}

/** A traceparent given in the request's `_meta` (contracts/operations.md), when there is one. */
function metaTraceparent(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { params?: { _meta?: { traceparent?: unknown } } }).params?._meta?.traceparent;
  return typeof value === 'string' ? value : undefined;
}

/** `tools/call <tool>`, or the method: the name of an MCP request's span. */
function spanName(body: unknown): string {
  const message = (typeof body === 'object' && body !== null ? body : {}) as {
    method?: unknown;
    params?: { name?: unknown };
  };
  const method = typeof message.method === 'string' ? message.method : 'mcp';
  return method === 'tools/call' && typeof message.params?.name === 'string'
    ? `tools/call ${message.params.name}`
    : method;
}

function isModernHeader(request: Request): boolean {
  const version = request.headers.get('mcp-protocol-version');
  return version !== null && version >= '2026-';
}

/**
 * The answer as it leaves, passed through untouched: only an allowed browser origin adds CORS
 * headers, set on the answer's own headers (its body is never read or rebuilt).
 */
function finish(response: Response, origin: string | undefined, preflight: boolean): Response {
  if (!origin) return response;
  let headers: Headers;
  let out = response;
  try {
    headers = response.headers;
    headers.set('access-control-allow-origin', origin);
  } catch {
    // Immutable headers (a fetched Response): copy them; the body stream goes along unread.
    headers = new Headers(response.headers);
    out = new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    headers.set('access-control-allow-origin', origin);
  }
  const vary = headers.get('vary');
  headers.set('vary', vary ? `${vary}, Origin` : 'Origin');
  headers.set('access-control-expose-headers', 'mcp-session-id, mcp-protocol-version, svc-config-commit');
  if (preflight) {
    headers.set('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    headers.set(
      'access-control-allow-headers',
      'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id',
    );
    headers.set('access-control-max-age', '600');
  }
  return out;
}

/**
 * The pre-hot-path finish step, kept only for `fastPath: false` so the benchmark's "before" is
 * the old path as it was: a JSON answer is read whole and rebuilt as a string body.
 */
async function finishBuffered(response: Response, origin: string | undefined): Promise<Response> {
  const json =
    response.body !== null && (response.headers.get('content-type') ?? '').startsWith('application/json');
  if (!json) return finish(response, origin, false);
  const headers: Record<string, string> = {};
  response.headers.forEach((value, key) => {
    headers[key] = value;
  });
  return finish(
    new Response(await response.text(), {
      status: response.status,
      statusText: response.statusText,
      headers,
    }),
    origin,
    false,
  );
}
