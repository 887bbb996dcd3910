/** GET /healthz, and GET /metrics when the service keeps Prometheus series. */
import { Hono } from 'hono';
import { metricsResponse } from '../../runtime/metrics.js';
import type { RouteContext } from './route-context.js';

export function healthRoutes({ options }: RouteContext): Hono {
  const routes = new Hono();
  routes.get('/healthz', (c) => c.json({ ok: true }));
  const metrics = options.metrics;
  if (metrics) {
    routes.get('/metrics', (c) =>
      metricsResponse(metrics.registry, options.metricsToken, c.req.header('authorization')),
    );
  }
  return routes;
}
