/** /healthz, /readyz and /metrics: the runtime's open operational routes. */
import { Hono } from 'hono';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeMetrics } from '../metrics.js';

export interface SyncHealth {
  ok: boolean;
  /** ISO time of the last poll that reached the control service (or of boot, before the first). */
  lastSuccess: string;
  /** Polls failed since the last success (the reasons are in the log, not on this open endpoint). */
  consecutiveFailures: number;
}

export function healthRoutes(options: {
  store: ConfigStore;
  closing: () => boolean;
  ready?: (() => boolean) | undefined;
  syncHealth?: (() => SyncHealth) | undefined;
  metrics?: RuntimeMetrics | undefined;
}): Hono {
  const { store, metrics } = options;
  const routes = new Hono();
  routes.get('/healthz', (c) => c.json({ status: 'ok' }));
  routes.get('/readyz', (c) => {
    if (options.closing()) return c.json({ status: 'closing' }, 503);
    if (options.ready && !options.ready()) return c.json({ status: 'starting' }, 503);
    const config = store.current();
    const sync = options.syncHealth?.();
    return c.json(
      {
        status: sync && !sync.ok ? 'sync_stale' : 'ready',
        serverId: config.serverId,
        configVersion: config.version,
        tools: config.toolList.length,
        ...(sync ? { sync } : {}),
      },
      sync && !sync.ok ? 503 : 200,
    );
  });
  if (metrics) routes.get('/metrics', (c) => metrics.respond(c.req.header('authorization')));
  return routes;
}
