/**
 * The tracing's own settings, read from the variables given (not process.env): the sampler
 * (OTEL_TRACES_SAMPLER / _ARG) is honoured — a trace sampled out is propagated (flags 00) but
 * never exported — and the batch settings (OTEL_BSP_*) reach the processor. An upstream span is
 * the child of its request span. A loopback OTLP/HTTP receiver decodes what arrives.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  AlwaysOffSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchConfigOf, createTracing, samplerOf } from './tracing.js';

interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

let receiver: Server;
let endpoint: string;
const received: ReceivedSpan[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: { scopeSpans: { spans: ReceivedSpan[] }[] }[];
      };
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) received.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => receiver.close(() => resolve())));

/** One MCP request with one upstream call; the traceparent the upstream got. */
async function oneCall(env: Record<string, string>, incoming?: string) {
  const tracing = createTracing({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, ...env })!;
  const span = tracing.startRequest('tools/call echo', incoming, { 'mcp.server.id': 'echo' });
  const request = { method: 'GET', url: 'http://127.0.0.1/api/x', headers: {} as Record<string, string> };
  await tracing.upstream('echo', request, span.traceparent, async () => ({ status: 200 }) as never);
  span.end(200);
  await tracing.shutdown();
  return { request: span.traceparent, upstream: request.headers.traceparent! };
}

describe('tracing settings', () => {
  it('reads the sampler from the variables given', () => {
    expect(samplerOf({})).toBeInstanceOf(ParentBasedSampler);
    expect(samplerOf({ OTEL_TRACES_SAMPLER: 'always_off' })).toBeInstanceOf(AlwaysOffSampler);
    expect(
      samplerOf({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.25' }).toString(),
    ).toBe(new TraceIdRatioBasedSampler(0.25).toString());
    expect(
      samplerOf({
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.1',
      }).toString(),
    ).toMatch(/ParentBased\{root=TraceIdRatioBased\{0\.1\}/);
  });

  it('reads the batch settings from OTEL_BSP_*, ignoring what is not a positive number', () => {
    expect(batchConfigOf({})).toEqual({});
    expect(
      batchConfigOf({
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '128',
        OTEL_BSP_SCHEDULE_DELAY: '250',
        OTEL_BSP_MAX_QUEUE_SIZE: 'x',
      }),
    ).toEqual({ maxExportBatchSize: 128, scheduledDelayMillis: 250 });
  });

  it('exports a request span and its upstream child', async () => {
    received.length = 0;
    const { request, upstream } = await oneCall({});
    const [, traceId, requestSpanId, flags] = request.split('-');
    expect(flags).toBe('01');
    expect(upstream.split('-')[1]).toBe(traceId);
    const child = received.find((s) => s.spanId === upstream.split('-')[2]);
    expect(child?.parentSpanId).toBe(requestSpanId);
    expect(received.some((s) => s.spanId === requestSpanId)).toBe(true);
  });

  it('OTEL_TRACES_SAMPLER=always_off: the trace is propagated, unsampled, and nothing is exported', async () => {
    received.length = 0;
    const incoming = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const { request, upstream } = await oneCall({ OTEL_TRACES_SAMPLER: 'always_off' }, incoming);
    expect(request.split('-')[1]).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(request.endsWith('-00')).toBe(true);
    expect(upstream.split('-')[1]).toBe('0af7651916cd43dd8448eb211c80319c');
    expect(received).toEqual([]);
  });

  it('a parent-based sampler follows the incoming decision', async () => {
    received.length = 0;
    const unsampled = '00-1af7651916cd43dd8448eb211c80319c-c7ad6b7169203331-00';
    expect((await oneCall({}, unsampled)).upstream.endsWith('-00')).toBe(true);
    expect(received).toEqual([]);
  });
});
