/**
 * Child-process entry of the runtime benchmark: each measured server runs in its own process,
 * as it would in production, while the load generator runs in the parent.
 *   node targets.js upstream
 *   node targets.js bare <upstreamUrl>
 *   node targets.js runtime <folderDir>
 * Prints one JSON line {url} on stdout once listening; SIGTERM stops it.
 */
import type { AddressInfo } from 'node:net';

// Each target imports only what it runs, so its RSS is its own (the bare proxy loads no MCP code).

async function main(): Promise<void> {
  const [kind, arg] = process.argv.slice(2);
  let url: string;
  let stop: () => Promise<void>;
  if (kind === 'upstream') {
    const { startEchoUpstream } = await import('../../runtime/testing/echo-upstream.js');
    const upstream = await startEchoUpstream({ record: false });
    url = upstream.url;
    stop = upstream.close;
  } else if (kind === 'bare') {
    // The floor for any proxy: Hono on @hono/node-server forwarding one call to the upstream, no MCP.
    const { serve } = await import('@hono/node-server');
    const { Hono } = await import('hono');
    const app = new Hono();
    app.post('/call/:id', async (c) => {
      const response = await fetch(`${arg}/api/echo/items/${encodeURIComponent(c.req.param('id'))}`);
      return c.body(await response.text(), 200, { 'content-type': 'application/json' });
    });
    const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    stop = () => new Promise<void>((resolve) => server.close(() => resolve()));
  } else if (kind === 'runtime') {
    const { parseRuntimeEnv } = await import('../../runtime/env.js');
    const { startRuntime } = await import('../../runtime/start-runtime.js');
    const runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
      folderDir: arg!,
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
