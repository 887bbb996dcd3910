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
 *
 * Portable sessions (SVC_SESSION_SECRET, runtime/session-token.ts): the session id is a signed
 * token, and a replica that gets a request of a session it has not seen (another replica opened
 * it, or this one forgot it) rebuilds it from the token: the config it started with, if still
 * held (else 404), and the SDK's per-session state, by replaying its initialize. The table is
 * then a cache: an idle session is forgotten, not ended, and a token past its absolute expiry
 * gets 404 on every replica. DELETE ends the session on the replica that received it only.
 *
 * A session is bound to who opened it (MCP security best practices, session hijacking: bind the
 * session to the user, never authenticate by it): the principal the inbound gate authenticated
 * (CallContext.principal) is kept with the session, and carried (hashed) in a portable id. A
 * request of that session bearing someone else's valid token, or none, gets the 404 of an unknown
 * session, on every replica: the id is no use to anyone but its owner.
 */
import {
  isInitializeRequest,
  type LegacyHttpHandler,
  type Server,
  WebStandardStreamableHTTPServerTransport,
} from '@modelcontextprotocol/server';
import { createHash } from 'node:crypto';
import { attachedCallContext } from './call-context.js';
import type { LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';
import { initClaims, type SessionTokens } from './session-token.js';

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
  /** Portable sessions: the absolute expiry the token carries (epoch ms). */
  expiresAt?: number;
  /** Who opened it (CallContext.principal); undefined when the endpoint authenticates nobody. */
  principal: string | undefined;
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
  /** Signed, portable session ids (SVC_SESSION_SECRET); without them ids are random and local. */
  tokens?: SessionTokens;
  /** The config a portable session started with (by digest prefix), if this replica still holds it. */
  findConfig?: (digestPrefix: string) => LoadedConfig | undefined;
}

/**
 * A few characters of a session id for logs: the start of a random id, the end (of the MAC) of a
 * signed one, whose start is the same for every session.
 */
function logLabel(id: string): string {
  return id.startsWith('s1.') ? id.slice(-10) : id.slice(0, 8);
}

/** Who the inbound gate authenticated for this request, if anyone. */
function principalOf(request: Request): string | undefined {
  return attachedCallContext(request)?.principal;
}

/** What a portable session id carries of its principal: readable by anyone, so a digest. */
function principalDigest(principal: string | undefined): string | undefined {
  return principal === undefined
    ? undefined
    : createHash('sha256').update(principal).digest('base64url').slice(0, 22);
}

/** How many characters of the config digest a session token carries (128 bits). */
const DIGEST_CHARS = 32;
const MAX_DELETED = 100_000;
const ACCEPT_BOTH = 'application/json, text/event-stream';

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
  /** Portable ids DELETEd here, until their expiry (epoch ms): 404 on this replica. */
  private readonly deleted = new Map<string, number>();
  private readonly reviving = new Map<string, Promise<Session | undefined>>();

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
  lookup(sid: string, pathKey: string, principal?: string): Session | undefined {
    const session = this.sessions.get(sid);
    if (!session || session.pathKey !== pathKey || this.isExpired(session) || this.isIdle(session))
      return undefined;
    if (session.principal !== principal) return undefined;
    this.touch(session);
    return session;
  }

  /** The config the live session `sid` serves (the Svc-Config-Commit header), if it is known here. */
  configOf(sid: string): LoadedConfig | undefined {
    return this.sessions.get(sid)?.config;
  }

  async handle(request: Request, pathKey: string, parsedBody: unknown, client = ''): Promise<Response> {
    const sid = request.headers.get('mcp-session-id');
    if (sid) {
      const principal = principalOf(request);
      let known = this.sessions.get(sid);
      if (known && known.pathKey !== pathKey) return jsonRpcError(404, -32001, 'Session not found');
      if (known && known.principal !== principal) return this.notTheOwner(known.id);
      if (known && (this.isExpired(known) || this.isIdle(known))) {
        await this.drop(known, this.isExpired(known) ? 'expired' : 'idle');
        known = undefined;
      }
      const session =
        known ?? (this.opts.tokens ? await this.revive(sid, pathKey, client, principal) : undefined);
      if (!session) return jsonRpcError(404, -32001, 'Session not found');
      // A revive by someone else meanwhile: this request is still not theirs.
      if (session.principal !== principal) return this.notTheOwner(session.id);
      this.touch(session);
      session.busy++;
      try {
        const response = await session.transport.handleRequest(request, { parsedBody });
        if (request.method === 'DELETE' && response.status < 300) {
          await this.drop(session, 'deleted');
          if (session.expiresAt !== undefined) this.rememberDeleted(sid, session.expiresAt);
        }
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

  /** A live session asked for with another principal's credentials: the 404 of an unknown session. */
  private notTheOwner(sid: string): Response {
    this.opts.logger.log('warn', 'session_principal_mismatch', { session: logLabel(sid) });
    return jsonRpcError(404, -32001, 'Session not found');
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
    const { tokens } = this.opts;
    const params = (parsedBody as { params?: unknown }).params;
    const principal = principalOf(request);
    const u = principalDigest(principal);
    const newId = tokens
      ? () =>
          tokens.issue(
            {
              d: config.digest.slice(0, DIGEST_CHARS),
              p: pathKey,
              init: initClaims(params),
              ...(u ? { u } : {}),
            },
            this.opts.now(),
          )
      : () => crypto.randomUUID();
    const owner = { pathKey, client, principal };
    const { transport } = await this.connect(config, owner, newId, 'session_open');
    return transport.handleRequest(request, { parsedBody });
  }

  /** A Server and transport for one session, registered in the table once its initialize is seen. */
  private async connect(
    config: LoadedConfig,
    owner: { pathKey: string; client: string; principal: string | undefined },
    newId: () => string,
    event: string,
  ): Promise<{ server: Server; transport: WebStandardStreamableHTTPServerTransport }> {
    const { pathKey, client, principal } = owner;
    const server = this.opts.build(config);
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: newId,
      onsessioninitialized: (id) => {
        const claims = this.opts.tokens?.verify(id);
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
          principal,
          ...(claims ? { expiresAt: claims.e * 1000 } : {}),
        });
        this.perClient.set(client, (this.perClient.get(client) ?? 0) + 1);
        this.opts.logger.log('info', event, { session: logLabel(id), configVersion: config.version });
      },
    });
    transport.onclose = () => {
      const session = transport.sessionId ? this.sessions.get(transport.sessionId) : undefined;
      if (session) this.forget(session);
    };
    await server.connect(transport);
    return { server, transport };
  }

  /** A portable session opened elsewhere (or forgotten here), rebuilt from its token; one rebuild at a time per id. */
  private revive(
    sid: string,
    pathKey: string,
    client: string,
    principal: string | undefined,
  ): Promise<Session | undefined> {
    let pending = this.reviving.get(sid);
    if (!pending) {
      pending = this.rebuild(sid, pathKey, client, principal).finally(() => this.reviving.delete(sid));
      this.reviving.set(sid, pending);
    }
    return pending;
  }

  private async rebuild(
    sid: string,
    pathKey: string,
    client: string,
    principal: string | undefined,
  ): Promise<Session | undefined> {
    const claims = this.opts.tokens?.verify(sid);
    if (!claims || claims.p !== pathKey || this.closed) return undefined;
    if (claims.u !== principalDigest(principal)) {
      this.opts.logger.log('warn', 'session_principal_mismatch', { session: logLabel(sid) });
      return undefined;
    }
    if (this.opts.now() >= claims.e * 1000 || this.deleted.has(sid)) return undefined;
    const config = this.opts.findConfig?.(claims.d);
    if (!config) {
      // The client gets 404 and starts a new session, on the newest config.
      this.opts.logger.log('info', 'session_config_gone', { session: logLabel(sid) });
      return undefined;
    }
    if ((this.perClient.get(client) ?? 0) >= this.opts.maxSessionsPerClient) this.evictIdle(client);
    if (this.sessions.size >= this.opts.maxSessions) this.evictIdle(undefined);
    const { transport } = await this.connect(
      config,
      { pathKey, client, principal },
      () => sid,
      'session_revived',
    );
    // Replays the session's initialize: the SDK then holds the negotiated version and the client's capabilities.
    const headers = { 'content-type': 'application/json', accept: ACCEPT_BOTH };
    const init = await transport.handleRequest(
      new Request('http://svc.internal/mcp', { method: 'POST', headers }),
      { parsedBody: { jsonrpc: '2.0', id: 0, method: 'initialize', params: claims.init } },
    );
    await init.text();
    const session = this.sessions.get(sid);
    if (!session || init.status !== 200) {
      if (session) await this.drop(session, 'revive_failed');
      return undefined;
    }
    const initialized = await transport.handleRequest(
      new Request('http://svc.internal/mcp', {
        method: 'POST',
        headers: { ...headers, 'mcp-session-id': sid },
      }),
      { parsedBody: { jsonrpc: '2.0', method: 'notifications/initialized' } },
    );
    await initialized.text();
    return session;
  }

  private rememberDeleted(sid: string, until: number): void {
    if (this.deleted.size >= MAX_DELETED) {
      const oldest = this.deleted.keys().next();
      if (!oldest.done) this.deleted.delete(oldest.value);
    }
    this.deleted.set(sid, until);
  }

  private touch(session: Session): void {
    session.lastSeen = this.opts.now();
    // Re-inserting keeps the map in least-recently-used order.
    this.sessions.delete(session.id);
    this.sessions.set(session.id, session);
  }

  /** Ended for good: past a portable session's absolute expiry, or idle too long for a local one. */
  private isExpired(session: Session): boolean {
    if (session.expiresAt !== undefined) return this.opts.now() >= session.expiresAt;
    return this.isIdle(session);
  }

  /** Unused for the idle period: a local session ends, a portable one is only forgotten here. */
  private isIdle(session: Session): boolean {
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
    this.opts.logger.log('info', 'session_close', { session: logLabel(session.id), reason: why });
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
    for (const s of [...this.sessions.values()]) {
      if (this.isExpired(s)) void this.drop(s, 'expired');
      else if (this.isIdle(s)) void this.drop(s, 'idle');
    }
    const now = this.opts.now();
    for (const [sid, until] of this.deleted) if (now >= until) this.deleted.delete(sid);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    await Promise.all([...this.sessions.values()].map((s) => this.drop(s, 'shutdown')));
  }
}
