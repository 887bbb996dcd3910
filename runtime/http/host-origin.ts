/**
 * Origin validation (spec 5.5) and the DNS-rebinding Host check (runtime/origin-policy.ts),
 * before anything else of the MCP routes: a refused request is answered 403 and logged.
 *
 * Not @modelcontextprotocol/hono's hostHeaderValidation/originValidation: they compare
 * hostnames only (port-agnostic), so `http://localhost:1` would pass where the runtime allows
 * only its own origins and MCP_ALLOWED_ORIGINS exactly (test/runtime-origin.test.ts); they
 * accept `user@localhost` as a Host; and they answer in other words ("Invalid Origin: …").
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
