/**
 * /v1/servers/:serverId/source-credential: the credential import jobs read the server's source
 * with. Write-only (never returned), bound to one URL prefix and sealed with it.
 */
import { type Context, Hono } from 'hono';
import { isSvcError } from '../../core/svc-error.js';
import { loadFolder } from '../../folder/index.js';
import { credentialScope } from '../../generator/sources/credential-scope.js';
import { problem } from '../middleware/problem.js';
import {
  parseSourceCredential,
  type SourceCredential,
  sealSourceCredential,
  sourceUrlOf,
} from '../source-credential.js';
import type { ServerRow } from '../store/control-store.js';
import type { RouteContext } from './route-context.js';

export function sourceCredentialRoutes(ctx: RouteContext): Hono {
  const { store } = ctx.options;
  const routes = new Hono();

  routes.put('/', async (c) => {
    const server = await store.getServer(c.req.param('serverId') ?? '');
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    return setCredential(c, ctx, server);
  });

  routes.delete('/', async (c) => {
    const server = await store.getServer(c.req.param('serverId') ?? '');
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    if (!(await store.deleteSourceCredential(server.id))) {
      return problem(c, 404, 'NOT_FOUND', `the server ${server.id} has no source credential`);
    }
    ctx.log('source_credential_deleted', { serverId: server.id });
    return c.body(null, 204);
  });

  return routes;
}

async function setCredential(c: Context, { options, log }: RouteContext, server: ServerRow) {
  const body = (await c.req.json().catch(() => undefined)) as unknown;
  let credential: SourceCredential;
  try {
    const given = parseSourceCredential(body);
    // Bound to one URL prefix, sealed with it: the one given, else the source config.yaml
    // names now. A later config.yaml pointing elsewhere does not take the token along.
    let url = given.url;
    if (url === undefined) {
      const repo = await options.repository(server);
      const files = await repo.readFolder(await repo.head(server.branch), server.path);
      const loaded = loadFolder(files);
      url = loaded.ok ? sourceUrlOf(loaded.folder.config.source) : undefined;
      if (url === undefined) {
        return problem(
          c,
          400,
          'USAGE',
          `the folder's source on ${server.branch} is not a git repository or raw URL this service can read: give "url", the URL prefix the token is for`,
        );
      }
    }
    credential = {
      token: given.token,
      ...(given.username !== undefined ? { username: given.username } : {}),
      scope: credentialScope(url, 'url'),
    };
  } catch (error) {
    if (isSvcError(error)) return problem(c, 400, error.code, error.message);
    throw error;
  }
  const updatedAt = await options.store.setSourceCredential(
    server.id,
    sealSourceCredential(options.secrets, credential),
  );
  log('source_credential_set', { serverId: server.id, url: credential.scope });
  return c.json(
    { serverId: server.id, sourceCredential: { set: true, updatedAt, url: credential.scope } },
    200,
  );
}
