import { spawn } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitHttpServer {
  /** Base URL; a bare repository `<root>/team/api.git` is at `${url}/team/api.git`. */
  url: string;
  /** Every request seen: method, path (with query) and the Authorization header. */
  requests: { method: string; path: string; authorization?: string }[];
  close(): Promise<void>;
}

export interface GitHttpServerOptions {
  /** Directory holding bare repositories. */
  root: string;
  /**
   * Decides whether a request may go on, from its Authorization header (undefined when absent).
   * Absent: every request is served. A refusal answers 401 with a Basic challenge, as git hosts do.
   */
  authorize?: (authorization: string | undefined) => boolean;
}

/**
 * A real smart-HTTP git server on loopback: git's own `git http-backend` run as CGI, so clients
 * (isomorphic-git, the git binary) fetch and push over the same protocol GitHub and GitLab speak.
 * Push is enabled for every repository under `root`.
 */
export async function startGitHttpServer(options: GitHttpServerOptions): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const server = createServer((req, res) => {
    const authorization = req.headers.authorization;
    requests.push({
      method: req.method ?? 'GET',
      path: req.url ?? '/',
      ...(authorization ? { authorization } : {}),
    });
    if (options.authorize && !options.authorize(authorization)) {
      res
        .writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' })
        .end('unauthorized');
      return;
    }
    runBackend(options.root, req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function runBackend(root: string, req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_COUNT: '1',
      GIT_CONFIG_KEY_0: 'http.receivepack',
      GIT_CONFIG_VALUE_0: 'true',
      REQUEST_METHOD: req.method ?? 'GET',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      REMOTE_USER: 'svc-test',
      REMOTE_ADDR: '127.0.0.1',
    },
  });
  req.pipe(child.stdin);
  let head = Buffer.alloc(0);
  let headerDone = false;
  child.stdout.on('data', (chunk: Buffer) => {
    if (headerDone) {
      res.write(chunk);
      return;
    }
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headerDone = true;
    let status = 200;
    for (const line of head.subarray(0, end).toString('latin1').split('\r\n')) {
      const colon = line.indexOf(':');
      if (colon < 0) continue;
      const name = line.slice(0, colon).trim();
      const value = line.slice(colon + 1).trim();
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else res.setHeader(name, value);
    }
    res.writeHead(status);
    res.write(head.subarray(end + 4));
  });
  child.on('close', () => {
    if (!headerDone) res.writeHead(502, { 'content-type': 'text/plain' }).end('git http-backend failed');
    else res.end();
  });
  child.on('error', () => {
    if (!res.headersSent) res.writeHead(500).end();
  });
}
