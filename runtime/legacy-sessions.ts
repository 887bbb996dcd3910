/**
 * 2025-11-25 (and older) clients: sessionful Streamable HTTP. A session is created by
 * `initialize`, pinned to the config version and the /mcp path it started on, expires after
 * an idle period, and any unknown, expired or deleted session id gets 404 — so the client
 * knows to start over. Each session has its own Server and transport, so no request id or
 * answer is ever shared between sessions.
 *
 * Sessions are capped per client address and in total. A full table never refuses a new
 * client: the least recently used session with no request in flight is evicted instead (its
 * client gets 404 and starts over), so a flood of `initialize` from one address only ever
 * evicts that address's own sessions.
 */
import {
  isInitializeRequest,
  type LegacyHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';

export interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  pathKey: string;
  config: LoadedConfig;
  /** Client address the session was opened from (the per-address cap counts these). */
  client: string;
  lastSeen: number;
  /** Requests of this session being answered right now; a busy session is never evicted. */
  busy: number;
  /** Cancels a call the hot path is serving for this session, by JSON-RPC request id. */
  cancels: Map<string | number, () => void>;
}

export interface LegacySessionsOptions {
  build: (config: LoadedConfig) => Server;
  current: () => LoadedConfig;
  stateless: LegacyHttpHandler;
  idleMs: number;
  maxSessions: number;
  /** Cap on open sessions opened from one client address. */
  maxSessionsPerClient: number;
  now: () => number;
  logger: Logger;
}

export function jsonRpcError(
  status: number,
  code: number,
  message: string,
  headers?: HeadersInit,
  id: string | number | null = null,
): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json');
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id }), {
    status,
    headers: h,
  });
}

/** The request id a `notifications/cancelled` body names, if it is one. */
function cancelledRequestId(body: unknown): string | number | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const message = body as { method?: unknown; params?: { requestId?: unknown } };
  if (message.method !== 'notifications/cancelled') return undefined;
  const id = message.params?.requestId;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

export class LegacySessions {
  /** In least-recently-used order: a session is moved to the end each time it is used. */
  private readonly sessions = new Map<string, Session>();
  private readonly perClient = new Map<string, number>();
  private readonly sweeper: NodeJS.Timeout;
  private closed = false;

  constructor(private readonly opts: LegacySessionsOptions) {
    const every = Math.max(50, Math.min(30_000, Math.floor(opts.idleMs / 2)));
    this.sweeper = setInterval(() => this.sweep(), every);
    this.sweeper.unref();
  }

  get size(): number {
    return this.sessions.size;
  }

  /** Config version each open session serves (tests, /readyz). */
  versions(): number[] {
    return [...this.sessions.values()].map((s) => s.config.version);
  }

  /**
   * The live session `sid` on `pathKey`, marked used; undefined when unknown, on another path
   * or expired (the caller then lets `handle` answer 404).
   */
  lookup(sid: string, pathKey: string): Session | undefined {
    const session = this.sessions.get(sid);
    if (!session || session.pathKey !== pathKey || this.isExpired(session)) return undefined;
    this.touch(session);
    return session;
  }

  async handle(request: Request, pathKey: string, parsedBody: unknown, client = ''): Promise<Response> {
    const sid = request.headers.get('mcp-session-id');
    if (sid) {
      const session = this.sessions.get(sid);
      if (!session || session.pathKey !== pathKey || this.isExpired(session)) {
        if (session && this.isExpired(session)) await this.drop(session, 'expired');
        return jsonRpcError(404, -32001, 'Session not found');
      }
      this.touch(session);
      session.busy++;
      try {
        const response = await session.transport.handleRequest(request, { parsedBody });
        if (request.method === 'DELETE' && response.status < 300) await this.drop(session, 'deleted');
        const cancelled = cancelledRequestId(parsedBody);
        if (cancelled !== undefined && response.status === 202) this.cancel(session, cancelled);
        return response;
      } finally {
        session.busy--;
      }
    }
    if (request.method === 'POST' && isInitializeRequest(parsedBody))
      return this.open(request, pathKey, parsedBody, client);
    // No session: serve statelessly (curl-style clients); GET/DELETE get 405 there.
    return this.opts.stateless(request, { parsedBody });
  }

  /**
   * A cancelled request gets no answer, but its response stream must not stay open until the
   * session ends: the SDK (which has aborted the handler) never writes to it again.
   */
  private cancel(session: Session, requestId: string | number): void {
    session.cancels.get(requestId)?.();
    session.transport.closeSSEStream(requestId);
  }

  private async open(
    request: Request,
    pathKey: string,
    parsedBody: unknown,
    client: string,
  ): Promise<Response> {
    if (this.closed) return jsonRpcError(503, -32000, 'Server is shutting down');
    if ((this.perClient.get(client) ?? 0) >= this.opts.maxSessionsPerClient) this.evictIdle(client);
    if ((this.perClient.get(client) ?? 0) >= this.opts.maxSessionsPerClient)
      return jsonRpcError(503, -32000, 'Too many sessions from this address');
    if (this.sessions.size >= this.opts.maxSessions) this.evictIdle(undefined);
    if (this.sessions.size >= this.opts.maxSessions) return jsonRpcError(503, -32000, 'Too many sessions');
    const config = this.opts.current();
    const server = this.opts.build(config);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, {
          id,
          transport,
          server,
          pathKey,
          config,
          client,
          lastSeen: this.opts.now(),
          busy: 0,
          cancels: new Map(),
        });
        this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
        this.opts.logger.log('info', 'session_open', {
          session: id.slice(0, 8),
          configVersion: config.version,
        });
      },
    });
    transport.onclose = () => {
      const session = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined;
      if (session) this.forget(session);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  private touch(session: Session): void {
    session.lastSeen = this.opts.now();
    // Re-inserting keeps the map in least-recently-used order.
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  private isExpired(session: Session): boolean {
    return this.opts.now() - session.lastSeen > this.opts.idleMs;
  }

  private forget(session: Session): boolean {
    if (this.sessions.get(session.id) !== session) return false;
    this.sessions.delete(session.id);
    const left = (this.perClient.get(session.client) ?? 1) - 1;
    if (left > 0) this.perClient.set(session.client, left);
    else this.perClient.delete(session.client);
    for (const cancel of session.cancels.values()) cancel();
    return true;
  }

  private async drop(session: Session, why: string): Promise<void> {
    if (!this.forget(session)) return;
    this.opts.logger.log('info', 'session_close', { session: session.id.slice(0, 8), reason: why });
    await session.server.close().catch(() => {});
  }

  /** Evicts the least recently used idle session (of `client`, or of anyone). */
  private evictIdle(client: string | undefined): void {
    for (const s of this.sessions.values()) {
      if (s.busy > 0 || (client !== undefined && s.client !== client)) continue;
      void this.drop(s, this.isExpired(s) ? 'expired' : 'evicted');
      return;
    }
  }

  sweep(): void {
    for (const s of [...this.sessions.values()]) if (this.isExpired(s)) void this.drop(s, 'expired');
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => this.drop(s, 'shutdown')));
  }
}
