import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StaticServer {
  url: string;
  requests: { path: string; authorization?: string }[];
  close(): Promise<void>;
}

/** A loopback HTTP server answering from a path → handler table, recording each request. */
export async function serveRoutes(
  routes: Record<string, (req: IncomingMessage, res: ServerResponse) => void>,
): Promise<StaticServer> {
  const requests: StaticServer['requests'] = [];
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    requests.push({
      path,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
    const route = routes[path];
    if (route) route(req, res);
    else res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
