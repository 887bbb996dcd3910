/**
 * A real HTTP upstream on 127.0.0.1 for tests and benchmarks: it records every request it
 * receives (method, path, query, headers, raw body) and answers according to the path, so a
 * test can check exactly what the runtime sent. Not a mock of the runtime: the thing under
 * test talks to it over a real socket.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path and query exactly as received. */
  url: string;
  path: string;
  query: [string, string][];
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface EchoUpstream {
  url: string;
  port: number;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

/** 1×1 red PNG. */
export const PNG_1X1 = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

/** A 44-byte WAV header with no samples. */
export const WAV_EMPTY = Buffer.from(
  'UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQAAAAA=',
  'base64',
);

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function json(res: ServerResponse, status: number, value: unknown): void {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

export interface EchoUpstreamOptions {
  /** Keep the recorded requests (default true; the benchmark turns it off). */
  record?: boolean;
  /** Extra routes checked before the built-in ones; return true when handled. */
  route?: (req: IncomingMessage, res: ServerResponse, body: Buffer, url: URL) => boolean;
}

export async function startEchoUpstream(options: EchoUpstreamOptions = {}): Promise<EchoUpstream> {
  const requests: RecordedRequest[] = [];
  const record = options.record ?? true;
  const server: Server = createServer(async (req, res) => {
    const body = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://upstream.local');
    const recorded: RecordedRequest = {
      method: req.method ?? '',
      url: req.url ?? '',
      path: url.pathname,
      query: [...url.searchParams.entries()],
      headers: req.headers,
      body: body.toString('utf8'),
    };
    if (record) requests.push(recorded);
    if (options.route?.(req, res, body, url)) return;
    const path = url.pathname.replace(/^\/api/, '');
    if (path.startsWith('/echo')) {
      return json(res, 200, {
        method: recorded.method,
        path: url.pathname,
        rawUrl: recorded.url,
        query: recorded.query,
        contentType: req.headers['content-type'] ?? null,
        body: recorded.body,
      });
    }
    const status = /^\/status\/(\d{3})$/.exec(path);
    if (status) {
      // Echo the request headers back, credential included: the runtime must redact it.
      return json(res, Number(status[1]), { error: 'as requested', headers: req.headers });
    }
    if (path === '/image') {
      res.writeHead(200, { 'content-type': 'image/png' });
      return res.end(PNG_1X1);
    }
    if (path === '/audio') {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      return res.end(WAV_EMPTY);
    }
    if (path === '/slow') {
      const ms = Number(url.searchParams.get('ms') ?? 1000);
      const timer = setTimeout(() => json(res, 200, { waited: ms }), ms);
      res.on('close', () => clearTimeout(timer));
      return;
    }
    if (path === '/big') {
      const bytes = Number(url.searchParams.get('bytes') ?? 1024);
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end('x'.repeat(bytes));
    }
    if (path === '/redirect') {
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/api/echo/redirected' });
      return res.end();
    }
    if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/plain' });
      return res.end(url.searchParams.get('text') ?? '');
    }
    json(res, 404, { error: 'no such route', path: url.pathname });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
