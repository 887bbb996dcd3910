/**
 * /v1/servers: register a server (a folder on a branch of a git repository, checked by loading
 * it) and list the registered servers with their published state and last import.
 */
import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { isSvcError } from '../../core/svc-error.js';
import { folderInvalid, loadFolder } from '../../folder/index.js';
import { type GitRepository, normaliseLocation } from '../git/git-repository.js';
import { problem } from '../middleware/problem.js';
import { jobJson } from './api-json.js';
import type { RouteContext } from './route-context.js';

export function newWebhookSecret(): string {
  // Standard Webhooks' format (whsec_ + base64 of 24..64 bytes); GitHub and GitLab take it as is.
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function serverRoutes(ctx: RouteContext): Hono {
  const routes = new Hono();
  routes.post('/', (c) => registerServer(c, ctx));
  routes.get('/', (c) => listServers(c, ctx));
  return routes;
}

/** `{repository, branch, path}` as strings, with no NUL byte and no `..` in the path; or the refusal. */
function registrationOf(
  body: Record<string, unknown> | undefined,
): { repository: string; branch: string; path: string } | string {
  const repository = body?.repository;
  const branch = body?.branch ?? 'main';
  const path = body?.path ?? '.';
  if (
    typeof repository !== 'string' ||
    !repository ||
    typeof branch !== 'string' ||
    typeof path !== 'string'
  ) {
    return 'give {repository, branch, path} as strings';
  }
  if ([repository, branch, path].some((v) => v.includes('\u0000')))
    return 'repository, branch and path must not contain a NUL byte';
  if (path.split('/').includes('..')) return 'path must stay inside the repository';
  return { repository, branch, path };
}

async function registerServer(c: Context, { options, log }: RouteContext) {
  const { store } = options;
  const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  const given = registrationOf(body);
  if (typeof given === 'string') return problem(c, 400, 'USAGE', given);
  const { repository, branch, path } = given;
  const location = normaliseLocation(repository, options.cwd);
  let files: Awaited<ReturnType<GitRepository['readFolder']>>;
  let repo: GitRepository | undefined;
  // A registration that fails leaves no cache behind (unless a registered server shares it).
  const abandon = async () => {
    if (!repo || (await store.listServers()).some((s) => s.repository === location)) return;
    await repo.discard().catch(() => undefined);
  };
  try {
    repo = await options.repository({ repository: location });
    files = await repo.readFolder(await repo.head(branch), path);
  } catch (error) {
    await abandon();
    if (isSvcError(error)) return problem(c, 400, error.code, error.message);
    throw error;
  }
  if (files['config.yaml'] === undefined) {
    await abandon();
    return problem(
      c,
      400,
      'FOLDER_NOT_FOUND',
      `no server folder at ${path} on ${branch}: config.yaml is missing`,
    );
  }
  const loaded = loadFolder(files);
  if (!loaded.ok) {
    await abandon();
    return problem(
      c,
      400,
      'FOLDER_INVALID',
      folderInvalid(loaded.errors, `the folder at ${path}`).describe(),
    );
  }
  const serverId = loaded.folder.config.server.id;
  const webhookSecret = newWebhookSecret();
  try {
    await store.addServer({
      id: serverId,
      repository: location,
      branch,
      path: path.replace(/^\.?\/+|\/+$/g, '') || '.',
      webhook_secret_sealed: options.secrets.seal(webhookSecret),
    });
  } catch (error) {
    await abandon();
    if (isSvcError(error) && error.code === 'USAGE') return problem(c, 409, 'CONFLICT', error.message);
    throw error;
  }
  log('server_registered', { serverId, repository: location, branch, path });
  return c.json({ serverId, webhookSecret }, 201);
}

async function listServers(c: Context, { options }: RouteContext) {
  const { store, snapshots } = options;
  const servers = await store.listServers();
  const list = await Promise.all(
    servers.map(async (s) => {
      const published = await snapshots.get(s).then(
        (state) => state.published,
        () => false,
      );
      const last = (await store.listJobs(s.id, 1))[0];
      return {
        serverId: s.id,
        repository: s.repository,
        branch: s.branch,
        path: s.path,
        published,
        lastImport: last ? jobJson(last) : null,
      };
    }),
  );
  return c.json(list);
}
