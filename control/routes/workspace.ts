/**
 * /v1/workspace: workspace tokens (listed, never their value; made with an optional expiry;
 * revoked) and the workspace's plan.
 */
import { Hono } from 'hono';
import { problem } from '../middleware/problem.js';
import { expiryFromDays } from '../tokens.js';
import { workspaceTokenJson } from './api-json.js';
import type { RouteContext } from './route-context.js';

export function workspaceRoutes({ options, log, now }: RouteContext): Hono {
  const { store } = options;
  const routes = new Hono();

  routes.get('/tokens', async (c) => {
    await store.flushTouches();
    return c.json((await store.listWorkspaceTokens()).map(workspaceTokenJson));
  });

  routes.post('/tokens', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const name = body.name;
    if (typeof name !== 'string' || !name.trim() || name.length > 200) {
      return problem(
        c,
        400,
        'USAGE',
        'give {"name": "…"} (at most 200 characters) and optionally "expiresInDays"',
      );
    }
    let expiresAt: string | undefined;
    if (body.expiresInDays !== undefined) {
      expiresAt = expiryFromDays(body.expiresInDays, now());
      if (!expiresAt)
        return problem(c, 400, 'USAGE', 'expiresInDays is a whole number of days from 1 to 3650');
    }
    const created = await store.createWorkspaceToken(name.trim(), expiresAt ? { expiresAt } : {});
    log('workspace_token_created', { id: created.id });
    return c.json(created, 201);
  });

  routes.delete('/tokens/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await store.revokeWorkspaceToken(id)))
      return problem(c, 404, 'NOT_FOUND', 'no such workspace token');
    log('workspace_token_revoked', { id });
    return c.body(null, 204);
  });

  routes.put('/plan', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    if (body.plan !== 'free' && body.plan !== 'paid')
      return problem(c, 400, 'USAGE', 'plan is "free" or "paid"');
    await store.setPlan(body.plan);
    return c.json({ plan: body.plan });
  });

  return routes;
}
