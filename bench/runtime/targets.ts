/**
 * Child-process entry of the runtime benchmark: each measured server runs in its own process,
 * as it would in production, while the load generator runs in the parent.
 *   node targets.js upstream
 *   node targets.js hono-proxy <upstreamUrl>     Hono + @hono/node-server, node:http upstream call
 *   node targets.js node-proxy <upstreamUrl>     plain node:http server, node:http upstream call
 *   node targets.js runtime <folderDir> [hot|sdk] [off|metrics|tracing|limit] [otlpUrl]
 *                                                the runtime, with or without the hot path; with
 *                                                metrics (the default), with none of the operations
 *                                                features, with tracing exported to otlpUrl, or
 *                                                with a rate limit configured in the folder
 * Prints one JSON line {url} on stdout once listening; SIGTERM stops it.
 *
 * Both bare proxies do what any MCP proxy must at the least: read and parse the JSON-RPC body,
 * call the upstream over a keep-alive node:http agent (as the runtime does), and answer a
 * JSON-RPC result carrying the upstream's text. They are the floor the runtime is held to.
 */
import type { AddressInfo } from 'node:net';

// Each target imports only what it runs, so its RSS is its own (the bare proxies load no MCP code).

async function upstreamText(agent: import('node:http').Agent, url: string): Promise<string> {
  const { request } = await import('node:http');
  return new Promise((resolve, reject) => {
    const req = request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

interface CallMessage {
  id: string | number;
  params: { arguments: { id: string } };
}

function rpcAnswer(message: CallMessage, text: string): string {
  return JSON.stringify({ jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }] } });
}

async function main(): Promise<void> {
  const [kind, arg, mode, ops, otlpUrl] = process.argv.slice(2);
  let url: string;
  let stop: () => Promise<void>;
  if (kind === 'upstream') {
    const { startEchoUpstream } = await import('../../runtime/testing/echo-upstream.js');
    const upstream = await startEchoUpstream({ record: false });
    url = upstream.url;
    stop = upstream.close;
  } else if (kind === 'hono-proxy') {
    const { Agent } = await import('node:http');
    const { serve } = await import('@hono/node-server');
    const { Hono } = await import('hono');
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const app = new Hono();
    app.post('/mcp', async (c) => {
      const message = (await c.req.json()) as CallMessage;
      const text = await upstreamText(
        agent,
        `${arg}/api/echo/r0/${encodeURIComponent(message.params.arguments.id)}`,
      );
      return c.body(rpcAnswer(message, text), 200, { 'content-type': 'application/json' });
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  } else if (kind === 'node-proxy') {
    const { Agent, createServer } = await import('node:http');
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', async () => {
        const message = JSON.parse(Buffer.concat(chunks).toString('utf8')) as CallMessage;
        const text = await upstreamText(
          agent,
          `${arg}/api/echo/r0/${encodeURIComponent(message.params.arguments.id)}`,
        );
        const body = rpcAnswer(message, text);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
    });
    server.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`;
    stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  } else if (kind === 'runtime') {
    // As runtime/main.ts does: before the runtime's modules are loaded (see runtime/boot-heap.ts).
    await import('../../runtime/hold-boot-heap.js');
    const { parseRuntimeEnv } = await import('../../runtime/env.js');
    const { startRuntime } = await import('../../runtime/start-runtime.js');
    const opsEnv: Record<string, string> =
      ops === 'off' || ops === 'limit'
        ? { SVC_METRICS: '0' }
        : ops === 'tracing'
          ? { SVC_METRICS: '0', OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl!, OTEL_SERVICE_NAME: 'svc-bench' }
          : {};
    const runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', ...opsEnv }),
      folderDir: arg!,
      fastPath: mode !== 'sdk',
      logger: { log() {} },
    });
    url = runtime.url;
    stop = runtime.close;
  } else {
    throw new Error(`unknown target ${kind}`);
  }
  process.stdout.write(`${JSON.stringify({ url })}\n`);
  process.on('SIGTERM', () => {
    void stop().then(() => process.exit(0));
  });
}

void main();
