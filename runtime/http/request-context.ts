/**
 * One CallContext per MCP request, for its tool calls: the auth gate's (user token, headers),
 * or the request's headers when the folder forwards some, plus the caller (rate limits) and the
 * trace id. Filed under the forwarded request for the SDK's handlers (runtime/call-context.ts).
 */
import type { MiddlewareHandler } from 'hono';
import { attachCallContext } from '../call-context.js';
import type { ConfigStore } from '../config-store.js';
import { callerOf } from '../rate-limit.js';
import type { CallContext } from '../tool-call.js';
import type { ClientAddress } from '../trusted-proxy.js';
import type { McpEnv } from './mcp-env.js';
import { requestTraceparent, traceIdOf } from './request-span.js';

export function requestContext(options: {
  store: ConfigStore;
  /** The client behind the balancer (SVC_TRUST_PROXY), for rate limits and session caps alike. */
  clientAddress: ClientAddress;
}): MiddlewareHandler<McpEnv> {
  const { store, clientAddress } = options;
  return async function requestContext(c, next) {
    const forward = c.get('forward');
    const headers = c.req.raw.headers;
    let call = c.get('gateCall');
    if (!call && store.current().forwardHeaders) call = { headers: forward.headers };
    const client = clientAddress(c.get('remoteAddress'), headers.get('x-forwarded-for'));
    c.set('client', client);
    // Rate limits and the execution log name the person when one signed in, else the address.
    const context: CallContext = Object.assign(call ?? {}, {
      caller: callerOf(call?.principal, client, undefined, false),
    });
    attachCallContext(forward, context);
    // Without tracing, the execution log still names the caller's trace (request-span does it with).
    const parent = requestTraceparent(headers, c.get('parsedBody'));
    if (parent) {
      const traceId = traceIdOf(parent);
      if (traceId) context.traceId = traceId;
    }
    c.set('context', context);
    await next();
  };
}
