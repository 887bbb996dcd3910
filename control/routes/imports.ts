/**
 * Import jobs (mounted at /v1/servers/:serverId/imports): queue one by hand, list them, read one
 * with its report (JSON and the Markdown a pull request shows).
 */
import { Hono } from 'hono';
import { renderReportMarkdown } from '../../generator/report/index.js';
import type { ImportReport } from '../../schemas/types.js';
import { problem } from '../middleware/problem.js';
import { jobJson } from './api-json.js';
import type { RouteContext } from './route-context.js';

export function importRoutes({ options, enqueue }: RouteContext): Hono {
  const { store } = options;
  const routes = new Hono();

  routes.post('/', async (c) => {
    const server = await store.getServer(c.req.param('serverId') ?? '');
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const { jobId } = await enqueue(server.id, 'manual');
    return c.json({ jobId }, 202);
  });

  routes.get('/', async (c) => {
    const server = await store.getServer(c.req.param('serverId') ?? '');
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    return c.json((await store.listJobs(server.id)).map(jobJson));
  });

  routes.get('/:jobId', async (c) => {
    const job = await store.getJob(c.req.param('jobId'));
    if (!job || job.server_id !== c.req.param('serverId')) return problem(c, 404, 'NOT_FOUND', 'no such job');
    const report = job.report ? (JSON.parse(job.report) as ImportReport) : undefined;
    return c.json({ ...jobJson(job), ...(report ? { report, markdown: renderReportMarkdown(report) } : {}) });
  });

  return routes;
}
