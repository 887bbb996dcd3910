/**
 * Origin validation (spec 5.5) and the DNS-rebinding Host check (runtime/origin-policy.ts),
 * before anything else of the MCP routes: a refused request is answered 403 and logged.
 *
 * Why not @modelcontextprotocol/hono (removed from package.json: nothing could use it without
 * changing what test/runtime-origin.test.ts and test/runtime-limits.test.ts pin):
 * - its hostHeaderValidation/originValidation compare hostnames only, port-agnostic, so
 *   `http://localhost:1` would pass where the runtime allows exactly its own origins and the
 *   origins of MCP_ALLOWED_ORIGINS (scheme, host and port); it takes `user@localhost` as a Host;
 *   it answers "Invalid Origin: <host>" where the runtime says "Forbidden: Origin not allowed";
 * - createMcpHonoApp turns on localhost-only origins for a loopback host, where an unset
 *   MCP_ALLOWED_ORIGINS accepts every origin (with a boot warning);
 * - its JSON body step answers 413 with -32000 "Payload Too Large: …" (the runtime: -32600
 *   "Request body too large", Connection: close) and a body that does not parse with a plain
 *   400 "Invalid JSON" (the runtime lets the SDK answer the JSON-RPC parse error), and it reads
 *   a clone of every request through a web stream (the runtime reads off the socket).
 */
import type { MiddlewareHandler } from 'hono';
import type { Logger } from '../logger.js';
import { checkOrigin, type OriginPolicy } from '../origin-policy.js';
import type { McpEnv } from './mcp-env.js';
import { type RejectCounter, refusal } from './refusal.js';

export function hostOriginCheck(options: {
  policy: OriginPolicy;
  logger: Logger;
  reject: RejectCounter;
}): MiddlewareHandler<McpEnv> {
  const { policy, logger, reject } = options;
  return async function hostOriginCheck(c, next) {
    const headers = c.req.raw.headers;
    const decision = checkOrigin(
      policy,
      headers.get('origin') ?? undefined,
      headers.get('host') ?? undefined,
    );
    if (!decision.ok) {
      logger.log('warn', 'origin_refused', { reason: decision.reason, path: new URL(c.req.url).pathname });
      reject('origin');
      return refusal(403, -32000, `Forbidden: ${decision.reason}`);
    }
    c.set('corsOrigin', decision.corsOrigin);
    await next();
  };
}
