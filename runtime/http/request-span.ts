/**
 * The OpenTelemetry span of an MCP request (with tracing on): named for the method or tool,
 * child of the caller's traceparent (header or `_meta`), ended with the answer's status.
 */
import type { MiddlewareHandler } from 'hono';
import type { ConfigStore } from '../config-store.js';
import type { Tracing } from '../tracing.js';
import type { McpEnv } from './mcp-env.js';

const TRACEPARENT = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The trace id of a W3C traceparent, when it is one (for the execution log, tracing off). */
export function traceIdOf(traceparent: string): string | undefined {
  return TRACEPARENT.exec(traceparent.trim())?.[1];
}

/** A traceparent given in the request's `_meta` (contracts/operations.md), when there is one. */
function metaTraceparent(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const value = (body as { params?: { _meta?: { traceparent?: unknown } } }).params?._meta?.traceparent;
  return typeof value === 'string' ? value : undefined;
}

/** The caller's traceparent: the header, else the message's `_meta`. */
export function requestTraceparent(headers: Headers, body: unknown): string | undefined {
  return headers.get('traceparent') ?? metaTraceparent(body);
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

export function requestSpan(options: { tracing: Tracing; store: ConfigStore }): MiddlewareHandler<McpEnv> {
  const { tracing, store } = options;
  return async function requestSpan(c, next) {
    const body = c.get('parsedBody');
    const context = c.get('context');
    const span = tracing.startRequest(spanName(body), requestTraceparent(c.req.raw.headers, body), {
      'mcp.server.id': store.current().serverId,
    });
    context.traceparent = span.traceparent;
    context.traceId = span.traceId;
    await next();
    span.end(c.error ? 500 : c.res.status);
  };
}
