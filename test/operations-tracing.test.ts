/**
 * OpenTelemetry traces end to end (contracts/operations.md): the runtime exports with the
 * official OTLP/HTTP exporter, configured by OTEL_* variables only, to a loopback receiver that
 * decodes what arrives. One trace crosses client → runtime → upstream: the client's traceparent
 * (an HTTP header, or the request's `_meta`) is the parent of the runtime's request span, whose
 * child is the upstream call's span, whose id the echo upstream receives in its traceparent.
 * Without OTEL_* nothing is exported and no traceparent is sent upstream.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import type { Era } from './helpers/mcp-client.js';

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: Record<string, unknown> }[];
}

let upstream: EchoUpstream;
let folder: TempFolder;
let receiver: Server;
let receiverUrl: string;
const spans: OtlpSpan[] = [];
const exportRequests: { path: string; contentType: string; service: string[] }[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: {
          resource: { attributes: { key: string; value: { stringValue?: string } }[] };
          scopeSpans: { spans: OtlpSpan[] }[];
        }[];
      };
      exportRequests.push({
        path: req.url ?? '',
        contentType: String(req.headers['content-type']),
        service: body.resourceSpans.flatMap((r) =>
          r.resource.attributes.filter((a) => a.key === 'service.name').map((a) => a.value.stringValue ?? ''),
        ),
      });
      for (const r of body.resourceSpans) for (const s of r.scopeSpans) spans.push(...s.spans);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise<void>((r) => receiver?.close(() => r()));
  await upstream?.close();
  await folder?.remove();
});

const hex = (bytes: number) => randomBytes(bytes).toString('hex');

async function connect(url: string, era: Era, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client(
    { name: `trace-${era}`, version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

function upstreamTraceparent(id: string): string | undefined {
  const seen = upstream.requests.find((r) => r.path === `/api/echo/items/${id}`);
  return seen?.headers.traceparent as string | undefined;
}

describe('with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('one trace id from the client through the runtime to the upstream, in both eras', async () => {
    const runtime = await startRuntime({
      env: parseRuntimeEnv({
        MCP_RUNTIME_PORT: '0',
        SVC_UPSTREAM_SECRET: 'sk-trace-1a2b3c4d',
        OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
        OTEL_SERVICE_NAME: 'svc-trace-test',
      }),
      folderDir: folder.dir,
      logger: { log() {} },
    });
    const traceA = hex(16);
    const parentA = hex(8);
    const traceB = hex(16);
    const parentB = hex(8);
    // Modern era: the traceparent as an HTTP header on every request of this client.
    const modern = await connect(runtime.url, 'modern', { traceparent: `00-${traceA}-${parentA}-01` });
    expect((await modern.callTool({ name: 'echo_get', arguments: { id: 'traced-a' } })).isError).toBeFalsy();
    // 2025 era: the traceparent in the request's _meta.
    const legacy = await connect(runtime.url, 'legacy');
    const viaMeta = await legacy.callTool({
      name: 'echo_get',
      arguments: { id: 'traced-b' },
      _meta: { traceparent: `00-${traceB}-${parentB}-01` },
    });
    expect(viaMeta.isError).toBeFalsy();
    await modern.close();
    await legacy.close();
    // close() flushes the batch of spans to the receiver.
    await runtime.close();

    expect(exportRequests.length).toBeGreaterThan(0);
    expect(
      exportRequests.every((r) => r.path === '/v1/traces' && r.contentType.startsWith('application/json')),
    ).toBe(true);
    expect(exportRequests.flatMap((r) => r.service)).toContain('svc-trace-test');

    for (const [trace, parent, id] of [
      [traceA, parentA, 'traced-a'],
      [traceB, parentB, 'traced-b'],
    ] as const) {
      const server = spans.find((s) => s.traceId === trace && s.name === 'tools/call echo_get');
      expect(server, `request span of ${id}`).toBeDefined();
      expect(server!.kind).toBe(2); // SERVER
      expect(server!.parentSpanId).toBe(parent);
      const client = spans.find((s) => s.traceId === trace && s.parentSpanId === server!.spanId);
      expect(client, `upstream span of ${id}`).toBeDefined();
      expect(client!.kind).toBe(3); // CLIENT
      expect(client!.name).toBe('GET');
      // The upstream received the upstream span's own traceparent: same trace, parent = that span.
      expect(upstreamTraceparent(id)).toBe(`00-${trace}-${client!.spanId}-01`);
    }
  });
});

describe('without OTEL_*', () => {
  it('exports nothing and sends no traceparent upstream; the execution log keeps the incoming trace id', async () => {
    const before = exportRequests.length;
    const lines: string[] = [];
    const runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-trace-1a2b3c4d' }),
      folderDir: folder.dir,
      logger: { log() {} },
      executionLogWrite: (line) => lines.push(line),
    });
    const trace = hex(16);
    const client = await connect(runtime.url, 'modern', { traceparent: `00-${trace}-${hex(8)}-01` });
    expect((await client.callTool({ name: 'echo_get', arguments: { id: 'untraced' } })).isError).toBeFalsy();
    await client.close();
    await runtime.close();
    expect(upstreamTraceparent('untraced')).toBeUndefined();
    expect(exportRequests.length).toBe(before);
    expect(JSON.parse(lines[0]!).traceId).toBe(trace);
  });
});
