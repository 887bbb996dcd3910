/**
 * Deploy tokens (mounted at /v1): made and listed per server, revoked by id. A token is shown
 * once, when made; the store keeps its hash.
 */
import { Hono } from 'hono';
import { problem } from '../middleware/problem.js';
import { deployTokenJson } from './api-json.js';
import type { RouteContext } from './route-context.js';

export function deployTokenRoutes({ options, log }: RouteContext): Hono {
  const { store } = options;
  const routes = new Hono();

  routes.post('/servers/:serverId/deploy-tokens', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const name = typeof body.name === 'string' && body.name ? body.name : 'deploy';
    const created = await store.createDeployToken(server.id, name);
    log('deploy_token_created', { serverId: server.id, id: created.id });
    return c.json(created, 201);
  });

  routes.delete('/deploy-tokens/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await store.revokeDeployToken(id))) return problem(c, 404, 'NOT_FOUND', 'no such deploy token');
    log('deploy_token_revoked', { id });
    return c.body(null, 204);
  });

  routes.get('/servers/:serverId/deploy-tokens', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    return c.json((await store.listDeployTokens(server.id)).map(deployTokenJson));
  });

  return routes;
}
