/**
 * CORS for the MCP routes: the preflight, and the headers an allowed browser origin
 * (host-origin's `corsOrigin`) adds to each answer. Refusals and internal errors go without,
 * as they always have.
 *
 * Not `hono/cors`: it sets its headers through `c.res`, which makes Hono copy every answer into
 * a new Response (runtime answers are passed on untouched, their body never rebuilt), adds
 * `Vary: Origin` and the preflight headers whether or not an origin was allowed, and reflects the
 * requested headers where the runtime lists its own.
 */
import type { MiddlewareHandler } from 'hono';
import type { McpEnv } from './mcp-env.js';
import { isRefusal } from './refusal.js';

const EXPOSED = 'mcp-session-id, mcp-protocol-version, svc-config-commit';
const ALLOWED_HEADERS =
  'content-type, accept, authorization, mcp-session-id, mcp-protocol-version, mcp-method, mcp-name, last-event-id';

/**
 * The answer as it leaves, passed through untouched: only an allowed browser origin adds CORS
 * headers, set on the answer's own headers (its body is never read or rebuilt).
 */
export function withCors(response: Response, origin: string | undefined, preflight: boolean): Response {
  if (!origin) return response;
  let headers: Headers;
  let out = response;
  try {
    headers = response.headers;
    headers.set('access-control-allow-origin', origin);
  } catch {
    // Immutable headers (a fetched Response): copy them; the body stream goes along unread.
    headers = new Headers(response.headers);
    out = new Response(response.body, { status: response.status, statusText: response.statusText, headers });
    headers.set('access-control-allow-origin', origin);
  }
  const vary = headers.get('vary');
  headers.set('vary', vary ? `${vary}, Origin` : 'Origin');
  headers.set('access-control-expose-headers', EXPOSED);
  if (preflight) {
    headers.set('access-control-allow-methods', 'GET, POST, DELETE, OPTIONS');
    headers.set('access-control-allow-headers', ALLOWED_HEADERS);
    headers.set('access-control-max-age', '600');
  }
  return out;
}

export function corsAnswers(): MiddlewareHandler<McpEnv> {
  return async function corsAnswers(c, next) {
    const origin = c.get('corsOrigin');
    if (c.req.method === 'OPTIONS') return withCors(new Response(null, { status: 204 }), origin, true);
    await next();
    if (!origin || c.error || isRefusal(c.res)) return;
    const answer = withCors(c.res, origin, false);
    if (answer !== c.res) c.res = answer;
  };
}
