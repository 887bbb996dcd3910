/**
 * Graceful close for the MCP routes: requests in flight are counted, and once closing, new ones
 * are refused (503) while those in flight finish, up to a grace period.
 */
import type { MiddlewareHandler } from 'hono';
import type { McpEnv } from './mcp-env.js';
import { type RejectCounter, refusal } from './refusal.js';

export interface Drain {
  closing(): boolean;
  /** Counts the request in flight until its answer is out. */
  track: MiddlewareHandler<McpEnv>;
  /** Refuses new requests once closing. */
  refuseWhenClosing(reject: RejectCounter): MiddlewareHandler<McpEnv>;
  /** Starts closing; resolves when nothing is in flight any more, or after graceMs. */
  drain(graceMs: number): Promise<void>;
}

export function createDrain(): Drain {
  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;
  return {
    closing: () => closing,
    track: async function trackInFlight(_c, next) {
      inFlight++;
      try {
        await next();
      } finally {
        inFlight--;
        if (inFlight === 0 && drained) drained();
      }
    },
    refuseWhenClosing(reject) {
      return async function refuseWhenClosing(_c, next) {
        if (!closing) return next();
        reject('closing');
        return refusal(503, -32000, 'Server is shutting down');
      };
    },
    async drain(graceMs) {
      closing = true;
      if (inFlight === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, graceMs);
        timer.unref();
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    },
  };
}
