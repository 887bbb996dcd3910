/**
 * The entry of the MCP routes, and the only middleware that reads the Node objects
 * @hono/node-server passes as env: they become plain values (the caller's address, a watch on
 * the client going away), so every later step sees a Web Request alone. Under `app.request()`
 * there are none: the request's own signal tells when the client has gone.
 *
 * The hot path needs the Node answer for one thing: its 'close' event tells that the client went
 * away without @hono/node-server building an AbortController per request (reading
 * `request.signal` does), which cost about 5% of busy time (runtime/call-cancel.ts).
 */
import type { ServerResponse } from 'node:http';
import type { MiddlewareHandler } from 'hono';
import { CallCancel } from '../call-cancel.js';
import { attachedCallContext } from '../call-context.js';
import type { ClientWatch, McpEnv } from './mcp-env.js';

/** Aborted when the Node answer closes unfinished, as @hono/node-server decides for request.signal. */
function watchNodeAnswer(outgoing: ServerResponse): ClientWatch {
  const cancel = new CallCancel();
  const onClose = () => {
    if (!outgoing.writableFinished) cancel.abort(new Error('client went away'));
  };
  if (outgoing.destroyed) onClose();
  outgoing.once('close', onClose);
  return { signal: cancel, done: () => outgoing.off('close', onClose) };
}

export function requestEntry(): MiddlewareHandler<McpEnv> {
  return async function requestEntry(c, next) {
    const request = c.req.raw;
    const outgoing = c.env?.outgoing;
    c.set('remoteAddress', c.env?.incoming?.socket.remoteAddress);
    c.set(
      'watchClient',
      outgoing ? () => watchNodeAnswer(outgoing) : () => ({ signal: request.signal, done() {} }),
    );
    // Read now: a later step may replace c.req.raw (hono/body-limit does, for a chunked body).
    c.set('gateCall', attachedCallContext(request));
    await next();
  };
}
