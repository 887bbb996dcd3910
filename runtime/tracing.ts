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
 *
 * Kept cheap per call (docs/operations.md has the figures): the sampler (OTEL_TRACES_SAMPLER,
 * _ARG) and the batch settings (OTEL_BSP_*) are read from the variables given, not from
 * process.env; an upstream span finds its request span without parsing the traceparent the
 * runtime itself wrote; attribute sets are built once per tool; a span not sampled is never
 * touched again; and a batch is serialized and sent after the request that filled it has
 * finished (setImmediate), never inside that request's own path.
 */
import {
  type Attributes,
  type Context,
  ROOT_CONTEXT,
  type Span,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BasicTracerProvider,
  BatchSpanProcessor,
  type BufferConfig,
  ParentBasedSampler,
  type Sampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
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
  /**
   * Runs an upstream call inside a CLIENT span: the span's traceparent is set on the request's
   * headers (the request is the call's own, built for it).
   */
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

/** OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG, as the specification defines them. */
export function samplerOf(env: Record<string, string | undefined>): Sampler {
  const name = (env.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on').trim().toLowerCase();
  const arg = Number.parseFloat(env.OTEL_TRACES_SAMPLER_ARG ?? '');
  const ratio = () => new TraceIdRatioBasedSampler(Number.isFinite(arg) && arg >= 0 && arg <= 1 ? arg : 1);
  switch (name) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return ratio();
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: ratio() });
    default:
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** OTEL_BSP_* (batch span processor), when given; the SDK's defaults otherwise (2048 / 512 / 5 s / 30 s). */
export function batchConfigOf(env: Record<string, string | undefined>): BufferConfig {
  const config: BufferConfig = {};
  const read = (name: string) => {
    const value = Number.parseInt(env[name] ?? '', 10);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  };
  const pairs: [keyof BufferConfig, string][] = [
    ['maxQueueSize', 'OTEL_BSP_MAX_QUEUE_SIZE'],
    ['maxExportBatchSize', 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'],
    ['scheduledDelayMillis', 'OTEL_BSP_SCHEDULE_DELAY'],
    ['exportTimeoutMillis', 'OTEL_BSP_EXPORT_TIMEOUT'],
  ];
  for (const [key, name] of pairs) {
    const value = read(name);
    if (value !== undefined) config[key] = value;
  }
  return config;
}

/**
 * The exporter, one turn of the event loop later: the batch processor exports as soon as a batch
 * is full, from inside the span.end() that filled it; this keeps the serialization out of that
 * request's path (it still runs in this process, once per batch).
 */
function deferred(exporter: SpanExporter): SpanExporter {
  return {
    export: (spans, done) => {
      setImmediate(() => exporter.export(spans, done));
    },
    shutdown: () => exporter.shutdown(),
    ...(exporter.forceFlush ? { forceFlush: () => exporter.forceFlush!() } : {}),
  };
}

/** The OTLP/HTTP exporter the OTEL_EXPORTER_OTLP_* variables describe, or undefined when they name none. */
function exporterOf(env: Record<string, string | undefined>): SpanExporter | undefined {
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
  return new OTLPTraceExporter({ url, headers });
}

/** Tracing as the OTEL_* variables in `env` ask for it, or undefined when they ask for none. */
export function createTracing(env: Record<string, string | undefined>): Tracing | undefined {
  const exporter = exporterOf(env);
  if (!exporter) return undefined;
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ 'service.name': env.OTEL_SERVICE_NAME?.trim() || 'svc-runtime' }),
    sampler: samplerOf(env),
    spanProcessors: [new BatchSpanProcessor(deferred(exporter), batchConfigOf(env))],
  });
  return tracingWith(provider);
}

function tracingWith(provider: BasicTracerProvider): Tracing {
  const tracer = provider.getTracer('svc-runtime');
  /** The context of each request span still open, by the traceparent handed to its calls. */
  const open = new Map<string, Context>();
  /** The attributes of an upstream span, per tool and method: built once, not per call. */
  const upstreamAttributes = new Map<string, Attributes>();
  const attributesOf = (tool: string, method: string): Attributes => {
    const key = `${method} ${tool}`;
    let attributes = upstreamAttributes.get(key);
    if (!attributes) {
      attributes = { 'http.request.method': method, 'mcp.tool.name': tool };
      if (upstreamAttributes.size < 10_000) upstreamAttributes.set(key, attributes);
    }
    return attributes;
  };

  return {
    startRequest(name, incoming, attributes) {
      const span = tracer.startSpan(name, { kind: SpanKind.SERVER, attributes }, parentContext(incoming));
      const traceparent = traceparentOf(span);
      open.set(traceparent, trace.setSpan(ROOT_CONTEXT, span));
      return {
        traceparent,
        traceId: span.spanContext().traceId,
        end(status) {
          open.delete(traceparent);
          if (!span.isRecording()) return;
          span.setAttribute('http.response.status_code', status);
          if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        },
      };
    },
    async upstream(tool, request, parent, send) {
      const context = (parent !== undefined ? open.get(parent) : undefined) ?? parentContext(parent);
      const span = tracer.startSpan(
        request.method,
        { kind: SpanKind.CLIENT, attributes: attributesOf(tool, request.method) },
        context,
      );
      request.headers.traceparent = traceparentOf(span);
      if (!span.isRecording()) return send(request);
      try {
        const outcome = await send(request);
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
