/**
 * Listen and drain: the one Node entry of the runtime (@hono/node-server) for one app or several.
 * The port is taken before any app exists, so the apps know the port they serve (the Origin
 * check); until then every request is answered 503. Closing stops taking connections, lets the
 * apps drain their in-flight calls, then ends idle keep-alive sockets (and, 2 s later, any left).
 */
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { SvcError } from '../../core/svc-error.js';
import type { RuntimeEnv } from '../env.js';

/** Answers a request; `nodeEnv` carries the Node request (client address, body read off the socket). */
export type NodeFetch = (request: Request, nodeEnv: unknown) => Response | Promise<Response>;

export interface Listening {
  port: number;
  /** http://host:port, with a wildcard host shown as localhost. */
  base: string;
  /** Stops listening; drainApps runs meanwhile (in-flight calls finish), then connections close. */
  drain(drainApps: () => Promise<unknown>): Promise<void>;
}

export function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') ? `[${host}]` : host;
}

export function starting(): Response {
  return new Response('starting', { status: 503 });
}

function listenError(env: RuntimeEnv, error: NodeJS.ErrnoException): SvcError {
  const inUse = error.code === 'EADDRINUSE';
  return new SvcError(
    inUse ? 'PORT_IN_USE' : 'USAGE',
    inUse
      ? `port ${env.port} on ${env.host} is already in use; stop what listens there or pick another port (--port or MCP_RUNTIME_PORT)`
      : `cannot listen on ${env.host}:${env.port}: ${error.code ?? error.message}`,
    { place: { field: 'MCP_RUNTIME_PORT' }, cause: error },
  );
}

type NodeServer = ReturnType<typeof serve> & {
  closeIdleConnections?: () => void;
  closeAllConnections?: () => void;
};

export async function listen(env: RuntimeEnv, fetch: NodeFetch): Promise<Listening> {
  const server = serve({ fetch, port: env.port, hostname: env.host }) as NodeServer;
  await new Promise<void>((resolve, reject) => {
    if (server.listening) return resolve();
    server.once('listening', () => resolve());
    server.once('error', (error: NodeJS.ErrnoException) => reject(listenError(env, error)));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    base: `http://${displayHost(env.host)}:${port}`,
    async drain(drainApps) {
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      await drainApps();
      // Idle keep-alive sockets would otherwise hold close() open.
      server.closeIdleConnections?.();
      const force = setTimeout(() => server.closeAllConnections?.(), 2000);
      force.unref();
      await closing;
      clearTimeout(force);
    },
  };
}
