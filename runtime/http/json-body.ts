/**
 * Reads and parses a POSTed JSON-RPC message (within the cap body-limit enforced). A body that
 * does not parse goes on as an unread copy, for the SDK to answer the parse error in its own
 * words; one nested past MAX_JSON_DEPTH is refused before anything recursive touches it.
 */
import type { MiddlewareHandler } from 'hono';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../json-depth.js';
import { jsonRpcError } from '../legacy-sessions.js';
import type { McpEnv } from './mcp-env.js';
import type { RejectCounter } from './refusal.js';

/** A message nested past MAX_JSON_DEPTH: a JSON-RPC error for its id (CORS applies, it is an answer). */
function tooDeep(body: unknown): Response {
  const message = body as { id?: unknown; method?: unknown };
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const text = `Invalid params: the message nests objects or arrays deeper than ${MAX_JSON_DEPTH} levels, the limit`;
  return jsonRpcError(id === null ? 400 : 200, -32602, text, undefined, id);
}

export function jsonBody(options: { reject: RejectCounter }): MiddlewareHandler<McpEnv> {
  const { reject } = options;
  return async function jsonBody(c, next) {
    const request = c.req.raw;
    let parsedBody: unknown;
    let forward = request;
    if (request.method === 'POST') {
      const text = await request.text();
      try {
        parsedBody = JSON.parse(text);
      } catch {
        forward = new Request(request.url, { method: 'POST', headers: request.headers, body: text });
      }
      if (exceedsJsonDepth(parsedBody)) {
        reject('too_deep');
        return tooDeep(parsedBody);
      }
    }
    c.set('parsedBody', parsedBody);
    c.set('forward', forward);
    await next();
  };
}
