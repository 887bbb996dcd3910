/**
 * The control service's HTTP surface (shared/contracts/control-service.md) as a Hono app: the
 * shared middleware (security headers, error mapping, metrics, body caps, workspace auth) and
 * the route groups of routes/, each mounted with app.route(). No listen and no process.env
 * here: start-control.ts does the I/O.
 */
import { Hono } from 'hono';
import type { ControlAppOptions } from './control-app-options.js';
import { apiBodyLimit, formBodyLimit } from './middleware/body-limits.js';
import { controlErrors, noSuchRoute } from './middleware/error-mapping.js';
import { snapshotPollMetrics, webhookMetrics } from './middleware/request-metrics.js';
import { securityHeaders } from './middleware/security-headers.js';
import { HOME, workspaceAuth } from './middleware/workspace-auth.js';
import { deployTokenRoutes } from './routes/deploy-tokens.js';
import { healthRoutes } from './routes/health.js';
import { importRoutes } from './routes/imports.js';
import { routeContext } from './routes/route-context.js';
import { serverRoutes } from './routes/servers.js';
import { signInRoutes } from './routes/sign-in.js';
import { snapshotRoutes } from './routes/snapshots.js';
import { sourceCredentialRoutes } from './routes/source-credential.js';
import { statusPageRoutes } from './routes/status-pages.js';
import { webhookRoutes } from './routes/webhooks.js';
import { workspaceRoutes } from './routes/workspace.js';

export type { ControlAppOptions } from './control-app-options.js';
export type { RuntimeFetch } from './runtime-fetches.js';
export { deployTokenJson, jobJson, workspaceTokenJson } from './routes/api-json.js';
export { newWebhookSecret } from './routes/servers.js';

export function createControlApp(opts: ControlAppOptions): Hono {
  const ctx = routeContext(opts);
  const app = new Hono();

  app.use('*', securityHeaders());
  app.onError(controlErrors(ctx.log));
  app.notFound(noSuchRoute);

  app.route('/', healthRoutes(ctx));
  if (opts.metrics) {
    app.use('/v1/servers/:serverId/export/snapshot', snapshotPollMetrics(opts.metrics));
    app.use('/v1/hooks/*', webhookMetrics(opts.metrics, ctx.hookResults));
  }

  app.use('/v1/*', apiBodyLimit());
  const formLimit = formBodyLimit();
  app.use('/login', formLimit);
  app.use('/logout', formLimit);

  const auth = workspaceAuth(opts.store);
  app.use('/v1/servers', auth.requireWorkspace);
  app.use('/v1/servers/*', auth.requireWorkspaceExceptSnapshot);
  app.use('/v1/deploy-tokens/*', auth.requireWorkspace);
  app.use('/v1/workspace/*', auth.requireWorkspace);
  app.use(HOME, auth.requireWorkspace);
  app.use('/servers/*', auth.requireWorkspace);

  app.route('/v1/servers', serverRoutes(ctx));
  app.route('/v1', deployTokenRoutes(ctx));
  app.route('/v1/servers/:serverId/source-credential', sourceCredentialRoutes(ctx));
  app.route('/v1/workspace', workspaceRoutes(ctx));
  app.route('/v1/servers/:serverId', snapshotRoutes(ctx));
  app.route('/v1/servers/:serverId/imports', importRoutes(ctx));
  app.route('/v1/hooks', webhookRoutes(ctx));
  app.route('/', signInRoutes(ctx));
  app.route('/', statusPageRoutes(ctx, auth.pageCsrf));

  return app;
}
