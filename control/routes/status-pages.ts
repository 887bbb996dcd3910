/**
 * The pages a signed-in browser sees: the server list (with the runtimes' calls, errors and p95
 * when a Prometheus is given) and a server's import status page.
 */
import type { Context } from 'hono';
import { Hono } from 'hono';
import { HOME } from '../middleware/workspace-auth.js';
import { problem } from '../middleware/problem.js';
import { fetchRuntimeStats } from '../runtime-stats.js';
import { renderServersPage, renderStatusPage } from '../status-page.js';
import { jobJson } from './api-json.js';
import { htmlPage } from './html-page.js';
import type { RouteContext } from './route-context.js';

export function statusPageRoutes(
  { options, runtimes }: RouteContext,
  pageCsrf: (c: Context) => string | undefined,
): Hono {
  const { store } = options;
  const routes = new Hono();

  routes.get('/', (c) => c.redirect(HOME, 303));

  routes.get(HOME, async (c) => {
    const [servers, stats] = await Promise.all([
      store.listServers(),
      options.prometheusUrl ? fetchRuntimeStats(options.prometheusUrl) : undefined,
    ]);
    return htmlPage(c, (ctx) => renderServersPage(servers, ctx, stats), pageCsrf(c));
  });

  routes.get('/servers/:serverId/imports', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const jobs = (await store.listJobs(server.id)).map(jobJson);
    return htmlPage(c, (ctx) => renderStatusPage(server, jobs, ctx, runtimes.of(server.id)), pageCsrf(c));
  });

  return routes;
}
