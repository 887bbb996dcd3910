/** The Prometheus series counted per request: snapshot polls by status, webhook deliveries by result. */
import type { Context, MiddlewareHandler } from 'hono';
import type { ControlMetrics } from '../control-metrics.js';

/** What a webhook delivery came to (queued, duplicate or ignored), set by the hook routes. */
export class HookResults {
  readonly #results = new WeakMap<Request, string>();
  set(c: Context, result: 'queued' | 'duplicate' | 'ignored'): void {
    this.#results.set(c.req.raw, result);
  }
  get(c: Context): string | undefined {
    return this.#results.get(c.req.raw);
  }
}

export function snapshotPollMetrics(metrics: ControlMetrics): MiddlewareHandler {
  return async function snapshotPollMetrics(c, next) {
    await next();
    metrics.snapshotPoll(c.res.status);
  };
}

export function webhookMetrics(metrics: ControlMetrics, results: HookResults): MiddlewareHandler {
  return async function webhookMetrics(c, next) {
    await next();
    const source = /^\/v1\/hooks\/(github|gitlab|generic)\b/.exec(c.req.path)?.[1] ?? 'unknown';
    const status = c.res.status;
    const result =
      results.get(c) ??
      (status === 401 ? 'bad_signature' : status === 400 || status === 413 ? 'invalid' : 'error');
    metrics.webhook(source, result);
  };
}
