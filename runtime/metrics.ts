/**
 * Prometheus metrics of the runtime (contracts/operations.md), with prom-client on a Registry
 * of this app's own (never the global default: several apps in one process, tests among them,
 * do not mix their series). Counting a call is a few map lookups; rendering happens only when
 * GET /metrics is asked, which is off the MCP path and needs SVC_METRICS_TOKEN when it is set.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { CallRecord } from './tool-call.js';

export interface RuntimeMetrics {
  readonly registry: Registry;
  /** GET /metrics: the series, or 401 without the token (when one is set). */
  respond(authorization: string | null | undefined): Promise<Response> | Response;
  call(record: CallRecord): void;
  /** An HTTP request refused before MCP served it: origin, too_large, too_deep, closing, not_found. */
  rejected(reason: string): void;
  /** A sync poll ended: success (updated or unchanged) or failure. */
  sync(ok: boolean, nowMs: number): void;
}

export interface RuntimeMetricsOptions {
  /** SVC_METRICS_TOKEN. */
  token?: string;
  /** The served server's id: a `server` label on every series (the status page groups by it). */
  server: string;
  /** The served config's identity: a digest of its folder, and the sync ETag it came with. */
  configInfo: () => { commit: string; etag: string };
  sessions: () => number;
}

/** Upstream answers are labelled by status class past these, so a flaky upstream cannot grow the series without bound. */
const KNOWN_STATUSES = new Set([
  200, 201, 202, 204, 301, 302, 304, 400, 401, 403, 404, 409, 422, 429, 500, 502, 503, 504,
]);

function statusLabel(record: CallRecord): string {
  if (record.status === undefined) return record.failure ?? 'none';
  if (KNOWN_STATUSES.has(record.status)) return String(record.status);
  return `${Math.floor(record.status / 100)}xx`;
}

export function createRuntimeMetrics(opts: RuntimeMetricsOptions): RuntimeMetrics {
  const registry = new Registry();
  registry.setDefaultLabels({ server: opts.server });
  const calls = new Counter({
    name: 'svc_tool_calls_total',
    help: 'Tool calls by tool and outcome (ok, tool_error, upstream_error, invalid, rate_limited, refused).',
    labelNames: ['tool', 'outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'svc_tool_call_duration_seconds',
    help: 'Duration of tool calls, from the call to its result, in seconds.',
    labelNames: ['tool'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  const upstream = new Counter({
    name: 'svc_upstream_responses_total',
    help: 'Upstream answers by tool and HTTP status (or timeout, network, too_large, cancelled when none arrived).',
    labelNames: ['tool', 'status'] as const,
    registers: [registry],
  });
  new Gauge({
    name: 'svc_config_info',
    help: 'The served config: commit (a digest of the served folder) and the ETag of the snapshot it came from.',
    labelNames: ['commit', 'etag'] as const,
    registers: [registry],
    collect() {
      this.reset();
      this.set(opts.configInfo(), 1);
    },
  });
  const lastSync = new Gauge({
    name: 'svc_sync_last_success_timestamp_seconds',
    help: 'When the config sync last reached the control service (Unix seconds; 0 before the first success).',
    registers: [registry],
  });
  const syncFailures = new Counter({
    name: 'svc_sync_failures_total',
    help: 'Config sync polls that failed (network, status, invalid snapshot).',
    registers: [registry],
  });
  new Gauge({
    name: 'svc_sessions',
    help: 'Open 2025-11-25 sessions.',
    registers: [registry],
    collect() {
      this.set(opts.sessions());
    },
  });
  const rejected = new Counter({
    name: 'svc_http_requests_rejected_total',
    help: 'HTTP requests refused before MCP served them, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  // The labelled children are looked up once per label set: a call then costs no label hashing.
  type Child = { inc(): void };
  const callChildren = new Map<string, Child>();
  const upstreamChildren = new Map<string, Child>();
  const durationChildren = new Map<string, { observe(value: number): void }>();
  return {
    registry,
    respond: (authorization) => metricsResponse(registry, opts.token, authorization),
    call(record) {
      const callKey = `${record.tool}\u0000${record.outcome}`;
      let call = callChildren.get(callKey);
      if (!call) {
        call = calls.labels(record.tool, record.outcome);
        callChildren.set(callKey, call);
      }
      call.inc();
      let timing = durationChildren.get(record.tool);
      if (!timing) {
        timing = duration.labels(record.tool);
        durationChildren.set(record.tool, timing);
      }
      timing.observe(record.durationMs / 1000);
      if (record.status !== undefined || record.failure !== undefined) {
        const status = statusLabel(record);
        const key = `${record.tool}\u0000${status}`;
        let answer = upstreamChildren.get(key);
        if (!answer) {
          answer = upstream.labels(record.tool, status);
          upstreamChildren.set(key, answer);
        }
        answer.inc();
      }
    },
    rejected(reason) {
      rejected.inc({ reason });
    },
    sync(ok, nowMs) {
      if (ok) lastSync.set(nowMs / 1000);
      else syncFailures.inc();
    },
  };
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/**
 * GET /metrics as a web-standard handler: the registry in Prometheus text format, behind
 * `Authorization: Bearer <token>` when a token is set (compared in constant time).
 */
export function metricsResponse(
  registry: Registry,
  token: string | undefined,
  authorization: string | null | undefined,
): Promise<Response> | Response {
  if (token !== undefined) {
    const given = /^Bearer\s+(.+)$/i.exec(authorization ?? '')?.[1]?.trim() ?? '';
    if (!timingSafeEqual(digest(given), digest(token))) {
      return new Response('a bearer token (SVC_METRICS_TOKEN) is required\n', {
        status: 401,
        headers: { 'content-type': 'text/plain; charset=utf-8', 'www-authenticate': 'Bearer' },
      });
    }
  }
  return registry
    .metrics()
    .then((text) => new Response(text, { status: 200, headers: { 'content-type': registry.contentType } }));
}
