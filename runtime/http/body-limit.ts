/**
 * The request body cap of the MCP routes (POST only): over the cap the answer is 413 and not
 * another byte is read; the connection closes once the answer is out.
 *
 * A body with a Content-Length is judged by it (Node's parser never delivers more) and is then
 * read by @hono/node-server's direct reader, straight off the socket. A chunked body goes
 * through `hono/body-limit`, which counts it as it streams. `hono/body-limit` is not used for
 * the first kind because it asks `c.req.raw.body` first, which makes @hono/node-server build a
 * full Request and a web stream over the socket for every request.
 */
import type { MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { McpEnv } from './mcp-env.js';
import { type RejectCounter, refusal } from './refusal.js';

export function mcpBodyLimit(options: {
  maxBytes: number;
  reject: RejectCounter;
}): MiddlewareHandler<McpEnv> {
  const { maxBytes, reject } = options;
  const tooLarge = () => {
    reject('too_large');
    return refusal(413, -32600, 'Request body too large', { connection: 'close' });
  };
  const streamed = bodyLimit({ maxSize: maxBytes, onError: tooLarge });
  return async function mcpBodyLimit(c, next) {
    if (c.req.method !== 'POST') return next();
    const headers = c.req.raw.headers;
    const length = headers.get('content-length');
    if (length !== null && !headers.has('transfer-encoding')) {
      return Number(length) > maxBytes ? tooLarge() : next();
    }
    return streamed(c, next);
  };
}
