/**
 * 2025-11-25 (and older) clients: sessionful Streamable HTTP. A session is created by
 * `initialize`, pinned to the config version and the /mcp path it started on, expires after
 * an idle period, and any unknown, expired or deleted session id gets 404 — so the client
 * knows to start over. Each session has its own Server and transport, so no request id or
 * answer is ever shared between sessions.
 */
import {
  isInitializeRequest,
  type LegacyHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import type { LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';

interface Session {
  id: string;
  transport: WebStandardStreamableHTTPServerTransport;
  server: Server;
  pathKey: string;
  config: LoadedConfig;
  lastSeen: number;
}

export interface LegacySessionsOptions {
  build: (config: LoadedConfig) => Server;
  current: () => LoadedConfig;
  stateless: LegacyHttpHandler;
  idleMs: number;
  maxSessions: number;
  now: () => number;
  logger: Logger;
}

export function jsonRpcError(status: number, code: number, message: string, headers?: HeadersInit): Response {
  const h = new Headers(headers);
  h.set('content-type', 'application/json');
  return new Response(JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }), {
    status,
    headers: h,
  });
}

export class LegacySessions {
  private readonly sessions = new Map<string, Session>();
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

  async handle(request: Request, pathKey: string, parsedBody: unknown): Promise<Response> {
    const sid = request.headers.get('mcp-session-id');
    if (sid) {
      const session = this.sessions.get(sid);
      if (!session || session.pathKey !== pathKey || this.isExpired(session)) {
        if (session && this.isExpired(session)) await this.drop(session, 'expired');
        return jsonRpcError(404, -32001, 'Session not found');
      }
      session.lastSeen = this.opts.now();
      const response = await session.transport.handleRequest(request, { parsedBody });
      if (request.method === 'DELETE' && response.status < 300) await this.drop(session, 'deleted');
      return response;
    }
    if (request.method === 'POST' && isInitializeRequest(parsedBody))
      return this.open(request, pathKey, parsedBody);
    // No session: serve statelessly (curl-style clients); GET/DELETE get 405 there.
    return this.opts.stateless(request, { parsedBody });
  }

  private async open(request: Request, pathKey: string, parsedBody: unknown): Promise<Response> {
    if (this.closed) return jsonRpcError(503, -32000, 'Server is shutting down');
    if (this.sessions.size >= this.opts.maxSessions) {
      this.evictOldest();
      if (this.sessions.size >= this.opts.maxSessions) return jsonRpcError(503, -32000, 'Too many sessions');
    }
    const config = this.opts.current();
    const server = this.opts.build(config);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => crypto.randomUUID(),
      onsessioninitialized: (id) => {
        this.sessions.set(id, { id, transport, server, pathKey, config, lastSeen: this.opts.now() });
        this.opts.logger.log('info', 'session_open', {
          session: id.slice(0, 8),
          configVersion: config.version,
        });
      },
    });
    transport.onclose = () => {
      if (transport.sessionId) this.sessions.delete(transport.sessionId);
    };
    await server.connect(transport);
    return transport.handleRequest(request, { parsedBody });
  }

  private isExpired(session: Session): boolean {
    return this.opts.now() - session.lastSeen > this.opts.idleMs;
  }

  private async drop(session: Session, why: string): Promise<void> {
    if (!this.sessions.delete(session.id)) return;
    this.opts.logger.log('info', 'session_close', { session: session.id.slice(0, 8), reason: why });
    await session.server.close().catch(() => {});
  }

  private evictOldest(): void {
    let oldest: Session | undefined;
    for (const s of this.sessions.values()) if (!oldest || s.lastSeen < oldest.lastSeen) oldest = s;
    if (oldest && this.isExpired(oldest)) void this.drop(oldest, 'expired');
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
