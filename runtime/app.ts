/**
 * The Hono app: /healthz, /readyz, and MCP at /mcp and /mcp/{serverId}. Modern (2026-07-28)
 * requests are served statelessly by the SDK's createMcpHandler from the newest config;
 * 2025-era requests go to LegacySessions. The MCP routes are named middleware, in order
 * (runtime/http/): the entry (the only reader of Node objects), the in-flight count and the
 * config-commit stamp, the Origin/Host check, CORS, the closing refusal, the body cap, the JSON
 * body, the server id, the call context, the span, then the hot path or the SDK. No request,
 * however malformed, can take the process down (errors become 4xx/5xx answers).
 * No listen, no process.env: startRuntime does the I/O.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createMcpHandler, legacyStatelessFallback } from '@modelcontextprotocol/server';
import { type Handler, Hono, type MiddlewareHandler } from 'hono';
import { createInboundGate } from './auth/inbound-gate.js';
import { createOAuthFacade } from './auth/oauth-facade.js';
import { createSealer } from './auth/seal.js';
import type { ConfigStore } from './config-store.js';
import type { RuntimeEnv } from './env.js';
import type { ExecutionLog } from './execution-log.js';
import { createFastPath } from './fast-path.js';
import { mcpBodyLimit } from './http/body-limit.js';
import { commitStamp } from './http/commit-stamp.js';
import { corsAnswers } from './http/cors.js';
import { createDrain } from './http/drain.js';
import { healthRoutes, type SyncHealth } from './http/health-routes.js';
import { hostOriginCheck } from './http/host-origin.js';
import { jsonBody } from './http/json-body.js';
import type { McpEnv } from './http/mcp-env.js';
import { requestContext } from './http/request-context.js';
import { requestEntry } from './http/request-entry.js';
import { requestSpan } from './http/request-span.js';
import { serveMcp } from './http/serve-mcp.js';
import { serverRoute } from './http/server-route.js';
import { LegacySessions } from './legacy-sessions.js';
import type { Logger } from './logger.js';
import { buildMcpServer } from './mcp-server.js';
import type { RuntimeMetrics, RuntimeMetricsOptions } from './metrics.js';
import { buildOriginPolicy, type OriginPolicy } from './origin-policy.js';
import { createSessionTokens } from './session-token.js';
import type { CallContext, ToolCallDeps } from './tool-call.js';
import { createToolCallDeps, runtimeRedactor, servedCommit } from './tool-call-deps.js';
import type { Tracing } from './tracing.js';
import { clientAddressOf } from './trusted-proxy.js';

export type { SyncHealth } from './http/health-routes.js';

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

const MAX_BODY_BYTES = 4 * 1024 * 1024;
const noopLogger: Logger = { log() {} };

/** The SDK's two ways in: the stateless 2026 handler and the 2025-era sessions. */
function createMcpHandlers(opts: CreateAppOptions, deps: ToolCallDeps, logger: Logger, now: () => number) {
  const { store, env } = opts;
  const onerror = (error: Error) => logger.log('warn', 'mcp_error', { message: deps.redact(error.message) });
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
  // Modern clients listening on subscriptions/listen re-fetch; 2025 sessions keep their pinned version.
  const unsubscribe = store.onSwap((config, previous) => {
    logger.log('info', 'config_swap', {
      from: previous.version,
      to: config.version,
      tools: config.toolList.length,
    });
    modern.notify.toolsChanged();
    modern.notify.promptsChanged();
    modern.notify.resourcesChanged();
  });
  return { modern, sessions, unsubscribe };
}

/** Inbound auth (runtime/auth/): the OAuth facade's routes, and the gate in front of /mcp. */
function mountInboundAuth(app: Hono, opts: CreateAppOptions, logger: Logger, now: () => number): void {
  const { store, env } = opts;
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
}

/** The runtime's own origins and the allowed ones (MCP_ALLOWED_ORIGINS), for host-origin. */
function originPolicyOf(opts: CreateAppOptions): OriginPolicy {
  const { env } = opts;
  return buildOriginPolicy({
    listenHost: env.host,
    port: opts.listenPort ?? env.port,
    ...(env.publicUrl ? { publicUrl: env.publicUrl } : {}),
    ...(env.allowedOrigins ? { allowedOrigins: env.allowedOrigins } : {}),
  });
}

/** /mcp and /mcp/{serverId}: the steps in order, then the hot path or the SDK. */
function mcpRoutes(steps: MiddlewareHandler<McpEnv>[], serve: Handler<McpEnv>): Hono<McpEnv> {
  const mcp = new Hono<McpEnv>();
  for (const path of ['/mcp', '/mcp/:serverId']) {
    mcp.use(path, ...steps);
    mcp.all(path, serve);
  }
  return mcp;
}

export function createApp(opts: CreateAppOptions): RuntimeApp {
  const { store, env } = opts;
  const now = opts.now ?? (() => performance.timeOrigin + performance.now());
  const logger = opts.logger ?? noopLogger;
  const redact = runtimeRedactor(env);
  const commitOf = servedCommit();
  const metrics = opts.metrics?.({
    server: store.current().serverId,
    ...(env.metricsToken ? { token: env.metricsToken } : {}),
    configInfo: () => ({ commit: commitOf(store.current()), etag: opts.syncEtag?.() ?? '' }),
    sessions: () => sessions.size,
  });
  // Calls served by the SDK (not the hot path) find their request's caller here.
  const callContexts = new AsyncLocalStorage<CallContext>();
  const deps = createToolCallDeps({ opts, logger, redact, metrics, commitOf, callContexts });
  const { modern, sessions, unsubscribe } = createMcpHandlers(opts, deps, logger, now);
  const fast =
    opts.fastPath === false ? undefined : createFastPath({ current: () => store.current(), sessions, deps });
  const reject = metrics ? (reason: string) => metrics.rejected(reason) : () => undefined;
  const drain = createDrain();
  const policy = originPolicyOf(opts);
  const steps: MiddlewareHandler<McpEnv>[] = [
    requestEntry(),
    drain.track,
    commitStamp({ store, sessions }),
    hostOriginCheck({ policy, logger, reject }),
    corsAnswers(),
    drain.refuseWhenClosing(reject),
    mcpBodyLimit({ maxBytes: MAX_BODY_BYTES, reject }),
    jsonBody({ reject }),
    serverRoute({ store, reject }),
    requestContext({ store, clientAddress: clientAddressOf(env.trustProxy, env.trustedProxies) }),
    ...(opts.tracing ? [requestSpan({ tracing: opts.tracing, store })] : []),
  ];
  const serve = serveMcp({
    fast,
    sessions,
    modern,
    requestContext: callContexts,
    bufferAnswers: opts.fastPath === false,
  });
  const app = new Hono();
  app.onError((error, c) => {
    logger.log('error', 'request_failed', {
      path: c.req.path,
      message: redact(String(error?.message ?? error)),
    });
    return c.json({ error: 'internal error' }, 500);
  });
  app.route(
    '/',
    healthRoutes({ store, closing: drain.closing, ready: opts.ready, syncHealth: opts.syncHealth, metrics }),
  );
  mountInboundAuth(app, opts, logger, now);
  app.route('/', mcpRoutes(steps, serve));
  return {
    app,
    sessionCount: () => sessions.size,
    hotPathServed: () => fast?.served() ?? 0,
    ...(metrics ? { metrics } : {}),
    async close(graceMs = 10_000) {
      if (drain.closing()) return;
      unsubscribe();
      await drain.drain(graceMs);
      await sessions.close();
      await modern.close();
    },
  };
}
