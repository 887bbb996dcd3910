/**
 * /mcp/{serverId}: another server id is 404, except for a 2025 session opened there before a
 * swap renamed the server (LegacySessions checks that the session belongs to this path).
 */
import type { MiddlewareHandler } from 'hono';
import type { ConfigStore } from '../config-store.js';
import type { McpEnv } from './mcp-env.js';
import { type RejectCounter, refusal } from './refusal.js';

/**
 * Era fast paths, so the hot path does not classify each request twice (the SDK's modern
 * handler classifies again): a body carrying the 2026 `_meta` envelope claim is modern (the
 * SDK's own rule: isLegacyRequest is false for it), and a claim-less request on an open 2025
 * session is legacy. Everything else goes through isLegacyRequest itself.
 */
export function envelopeClaim(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false;
  const meta = (body as { params?: { _meta?: unknown } }).params?._meta;
  return typeof meta === 'object' && meta !== null && 'io.modelcontextprotocol/protocolVersion' in meta;
}

export function serverRoute(options: {
  store: ConfigStore;
  reject: RejectCounter;
}): MiddlewareHandler<McpEnv> {
  const { store, reject } = options;
  return async function serverRoute(c, next) {
    const pathId = c.req.param('serverId');
    const claim = envelopeClaim(c.get('parsedBody'));
    const serverId = store.current().serverId;
    if (
      pathId !== undefined &&
      pathId !== serverId &&
      (claim || !c.get('forward').headers.get('mcp-session-id'))
    ) {
      reject('unknown_server');
      return refusal(404, -32000, `No MCP server with id "${pathId}" here`);
    }
    c.set('pathId', pathId);
    c.set('claim', claim);
    await next();
  };
}
