/**
 * OpenTelemetry traces (contracts/operations.md), configured only by the standard OTEL_*
 * variables: a SERVER span per MCP request, parented by the `traceparent` that came with it
 * (HTTP header, or the request's `_meta.traceparent`), and a CLIENT span per upstream call whose
 * `traceparent` header goes to the upstream. Spans leave through the OTLP/HTTP exporter in
 * batches. With no OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT, or OTEL_SDK_DISABLED=true, or
 * OTEL_TRACES_EXPORTER=none, there is no tracing at all: createTracing returns undefined and
 * the runtime's paths skip every step of it.
 *
 * Nothing is registered globally (no global provider, context manager or propagator): the
 * contexts are passed explicitly, so several runtimes in one process keep their own.
 */
import { type Context, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { UpstreamOutcome } from './upstream-call.js';
import type { UpstreamRequest } from './upstream-request.js';

const propagator = new W3CTraceContextPropagator();

export interface RequestSpan {
  /** The traceparent of this request's span, for the calls it makes. */
  traceparent: string;
  traceId: string;
  end(status: number): void;
}

export interface Tracing {
  /** Starts the span of one MCP request; `incoming` is its traceparent, when one came. */
  startRequest(name: string, incoming: string | undefined, attributes: Record<string, string>): RequestSpan;
  /** Runs an upstream call inside a CLIENT span, with the span's traceparent on the request. */
  upstream(
    tool: string,
    request: UpstreamRequest,
    parent: string | undefined,
    send: (request: UpstreamRequest) => Promise<UpstreamOutcome>,
  ): Promise<UpstreamOutcome>;
  /** Exports what is pending and stops. */
  shutdown(): Promise<void>;
}

function parentContext(traceparent: string | undefined): Context {
  if (!traceparent) return ROOT_CONTEXT;
  return propagator.extract(
    ROOT_CONTEXT,
    { traceparent },
    {
      get: (carrier, key) => (carrier as Record<string, string>)[key],
      keys: (carrier) => Object.keys(carrier as object),
    },
  );
}

/** The W3C traceparent naming this span as the parent (what the propagator would write). */
function traceparentOf(span: Span): string {
  const { traceId, spanId, traceFlags } = span.spanContext();
  return `00-${traceId}-${spanId}-${traceFlags & 1 ? '01' : '00'}`;
}

/** Tracing as the OTEL_* variables in `env` ask for it, or undefined when they ask for none. */
export function createTracing(env: Record<string, string | undefined>): Tracing | undefined {
  if ((env.OTEL_SDK_DISABLED ?? '').trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? 'otlp').split(',').map((s) => s.trim());
  if (!exporters.includes('otlp')) return undefined;
  const tracesEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!tracesEndpoint && !base) return undefined;
  const url = tracesEndpoint || `${base!.replace(/\/+$/, '')}/v1/traces`;
  const headers: Record<string, string> = {};
  for (const pair of (env.OTEL_EXPORTER_OTLP_TRACES_HEADERS ?? env.OTEL_EXPORTER_OTLP_HEADERS ?? '').split(
    ',',
  )) {
    const at = pair.indexOf('=');
    if (at > 0)
      headers[decodeURIComponent(pair.slice(0, at).trim())] = decodeURIComponent(pair.slice(at + 1).trim());
  }
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'svc-runtime' }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url, headers }))],
  });
  const tracer = provider.getTracer('svc-runtime');

  return {
    startRequest(name, incoming, attributes) {
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext(incoming));
      return {
        traceparent: traceparentOf(span),
        traceId: span.spanContext().traceId,
        end(status) {
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    async upstream(tool, request, parent, send) {
      const span = tracer.startSpan(
        `${request.method}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { 'http.request.method': request.method, 'mcp.tool.name': tool },
        },
        parentContext(parent),
      );
      try {
        const outcome = await send({
          ...request,
          headers: { ...request.headers, traceparent: traceparentOf(span) },
        });
        if (outcome.status !== undefined) span.setAttribute('http.response.status_code', outcome.status);
        if (outcome.failure !== undefined) span.setAttribute('error.type', outcome.failure);
        if (outcome.failure !== undefined || (outcome.status ?? 0) >= 500)
          span.setStatus({ code: SpanStatusCode.ERROR });
        return outcome;
      } finally {
        span.end();
      }
    },
    shutdown: () => provider.shutdown(),
  };
}
