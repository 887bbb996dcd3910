/**
 * The control service's HTTP surface (shared/contracts/control-service.md) as a Hono app: the
 * workspace API, the deploy-token snapshot the runtime polls, three webhook receivers and the
 * import status page. No listen and no process.env here: start-control.ts does the I/O.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { Webhooks } from '@octokit/webhooks';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { getCookie, setCookie } from 'hono/cookie';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { isSvcError } from '../core/svc-error.js';
import { loadFolder } from '../folder/index.js';
import { renderReportMarkdown } from '../generator/report/index.js';
import type { ImportReport } from '../schemas/types.js';
import { type GitRepository, normaliseLocation } from './git/git-repository.js';
import { etagMatches, type PublishedSnapshots } from './published-snapshot.js';
import type { SecretBox } from './secret-box.js';
import { credentialScope } from '../generator/sources/credential-scope.js';
import {
  parseSourceCredential,
  type SourceCredential,
  sealSourceCredential,
  sourceUrlOf,
} from './source-credential.js';
import { renderLoginPage, renderStatusPage } from './status-page.js';
import type { ControlStore, JobRow, ServerRow } from './store/control-store.js';
import type { JobTrigger, Plan } from './store/schema.js';
import { bearerToken } from './tokens.js';
import {
  githubDecision,
  githubRepositoryUrls,
  gitlabDecision,
  type HookDecision,
  normaliseRepositoryUrl,
} from './webhook-events.js';

export interface ControlAppOptions {
  store: ControlStore;
  snapshots: PublishedSnapshots;
  secrets: SecretBox;
  repository(server: Pick<ServerRow, 'repository'>): Promise<GitRepository>;
  /** Resolves a repository given at registration (relative paths against the service's cwd). */
  cwd: string;
  /** A job was queued: wake the worker. */
  onEnqueued?(): void;
  log?(event: string, fields: Record<string, unknown>): void;
}

const SESSION_COOKIE = 'svc_session';

type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 413 | 500;
function problem(c: Context, status: ErrorStatus, code: string, message: string) {
  return c.json({ error: { code, message } }, status);
}

export function jobJson(job: JobRow) {
  return {
    jobId: job.id,
    status: job.status,
    trigger: job.trigger,
    createdAt: job.created_at,
    startedAt: job.started_at,
    finishedAt: job.finished_at,
    ...(job.commit_sha ? { commit: job.commit_sha } : {}),
    ...(job.failed_step ? { failedStep: job.failed_step } : {}),
    ...(job.error ? { error: job.error } : {}),
    ...(job.summary ? { summary: job.summary } : {}),
    ...(job.progress ? { progress: JSON.parse(job.progress) as unknown } : {}),
  };
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

export function newWebhookSecret(): string {
  // Standard Webhooks' format (whsec_ + base64 of 24..64 bytes); GitHub and GitLab take it as is.
  return `whsec_${randomBytes(32).toString('base64')}`;
}

export function createControlApp(opts: ControlAppOptions): Hono {
  const { store, snapshots } = opts;
  const log = opts.log ?? (() => undefined);
  const app = new Hono();

  app.onError((error, c) => {
    if (isSvcError(error)) {
      const status = error.code === 'USAGE' || error.code.startsWith('FOLDER') ? 400 : 500;
      return problem(c, status, error.code, error.message);
    }
    log('request_failed', { path: c.req.path, reason: error.message });
    return problem(c, 500, 'INTERNAL', 'internal error');
  });
  app.notFound((c) => problem(c, 404, 'NOT_FOUND', 'no such route'));

  app.get('/healthz', (c) => c.json({ ok: true }));

  // GitHub caps payloads at 25 MB; nothing this service reads is larger.
  const limit = bodyLimit({
    maxSize: 25 * 1024 * 1024,
    onError: (c) => problem(c, 413, 'TOO_LARGE', 'the request body is larger than 25 MB'),
  });
  app.use('/v1/*', limit);
  app.use('/login', limit);

  // Workspace token: the bearer header, or (for the status page's GETs only) the session
  // cookie set by /login. The cookie is SameSite=Strict and never authorizes a change.
  const requireWorkspace = async (c: Context, next: () => Promise<void>) => {
    let token = bearerToken(c.req.header('authorization'));
    if (!token && c.req.method === 'GET') token = getCookie(c, SESSION_COOKIE);
    if (!token || !(await store.workspaceTokenValid(token))) {
      if (c.req.method === 'GET' && c.req.path.startsWith('/servers/')) {
        return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      }
      return problem(
        c,
        401,
        'UNAUTHORIZED',
        'a workspace token (Authorization: Bearer svc_pat_…) is required',
      );
    }
    await next();
  };
  app.use('/v1/servers', requireWorkspace);
  app.use('/v1/servers/*', async (c, next) => {
    // The snapshot takes a deploy token instead.
    if (c.req.path.endsWith('/export/snapshot')) return next();
    return requireWorkspace(c, next);
  });
  app.use('/v1/deploy-tokens/*', requireWorkspace);
  app.use('/v1/workspace/*', requireWorkspace);
  app.use('/servers/*', requireWorkspace);

  // Servers ---------------------------------------------------------------------------------

  app.post('/v1/servers', async (c) => {
    const body = (await c.req.json().catch(() => undefined)) as Record<string, unknown> | undefined;
    const repository = body?.repository;
    const branch = body?.branch ?? 'main';
    const path = body?.path ?? '.';
    if (
      typeof repository !== 'string' ||
      !repository ||
      typeof branch !== 'string' ||
      typeof path !== 'string'
    ) {
      return problem(c, 400, 'USAGE', 'give {repository, branch, path} as strings');
    }
    if (path.split('/').includes('..'))
      return problem(c, 400, 'USAGE', 'path must stay inside the repository');
    const location = normaliseLocation(repository, opts.cwd);
    let files: Awaited<ReturnType<GitRepository['readFolder']>>;
    let repo: GitRepository | undefined;
    // A registration that fails leaves no cache behind (unless a registered server shares it).
    const abandon = async () => {
      if (!repo || (await store.listServers()).some((s) => s.repository === location)) return;
      await repo.discard().catch(() => undefined);
    };
    try {
      repo = await opts.repository({ repository: location });
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
        `the folder at ${path} is not valid: ${loaded.errors[0]?.describe() ?? 'unknown problem'}`,
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
        webhook_secret_sealed: opts.secrets.seal(webhookSecret),
      });
    } catch (error) {
      await abandon();
      if (isSvcError(error) && error.code === 'USAGE') return problem(c, 409, 'CONFLICT', error.message);
      throw error;
    }
    log('server_registered', { serverId, repository: location, branch, path });
    return c.json({ serverId, webhookSecret }, 201);
  });

  app.get('/v1/servers', async (c) => {
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
  });

  app.post('/v1/servers/:serverId/deploy-tokens', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    const name = typeof body.name === 'string' && body.name ? body.name : 'deploy';
    const created = await store.createDeployToken(server.id, name);
    log('deploy_token_created', { serverId: server.id, id: created.id });
    return c.json(created, 201);
  });

  // The credential import jobs read the server's source with: write-only, never returned.
  app.put('/v1/servers/:serverId/source-credential', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const body = (await c.req.json().catch(() => undefined)) as unknown;
    let credential: SourceCredential;
    try {
      const given = parseSourceCredential(body);
      // Bound to one URL prefix, sealed with it: the one given, else the source config.yaml
      // names now. A later config.yaml pointing elsewhere does not take the token along.
      let url = given.url;
      if (url === undefined) {
        const repo = await opts.repository(server);
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
    const updatedAt = await store.setSourceCredential(
      server.id,
      sealSourceCredential(opts.secrets, credential),
    );
    log('source_credential_set', { serverId: server.id, url: credential.scope });
    return c.json(
      { serverId: server.id, sourceCredential: { set: true, updatedAt, url: credential.scope } },
      200,
    );
  });

  app.delete('/v1/servers/:serverId/source-credential', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    if (!(await store.deleteSourceCredential(server.id))) {
      return problem(c, 404, 'NOT_FOUND', `the server ${server.id} has no source credential`);
    }
    log('source_credential_deleted', { serverId: server.id });
    return c.body(null, 204);
  });

  app.delete('/v1/deploy-tokens/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await store.revokeDeployToken(id))) return problem(c, 404, 'NOT_FOUND', 'no such deploy token');
    log('deploy_token_revoked', { id });
    return c.body(null, 204);
  });

  app.put('/v1/workspace/plan', async (c) => {
    const body = (await c.req.json().catch(() => ({}))) as Record<string, unknown>;
    if (body.plan !== 'free' && body.plan !== 'paid')
      return problem(c, 400, 'USAGE', 'plan is "free" or "paid"');
    await store.setPlan(body.plan);
    return c.json({ plan: body.plan });
  });

  // Published export: the snapshot (deploy token) and the export (workspace token) ----------------

  /** The published export of a server, with the plan's and the branch's refusals. */
  const published = async (c: Context, server: ServerRow, plan: Plan) => {
    if (plan !== 'paid') {
      return problem(
        c,
        403,
        'PLAN_REQUIRED',
        'the workspace is on the free plan: export and sync need the paid plan',
      );
    }
    const state = await snapshots.get(server);
    if (!state.published || !state.body || !state.etag) {
      return problem(
        c,
        404,
        'NOT_PUBLISHED',
        state.problem ?? `the server ${server.id} is not published on ${server.branch}`,
      );
    }
    c.header('ETag', state.etag);
    c.header('Cache-Control', 'no-cache');
    if (etagMatches(c.req.header('if-none-match'), state.etag)) return c.body(null, 304);
    c.header('Content-Type', 'application/json; charset=utf-8');
    return c.body(state.body, 200);
  };

  app.get('/v1/servers/:serverId/export/snapshot', async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    const access = token ? await store.snapshotAccess(token) : undefined;
    if (!access)
      return problem(c, 401, 'UNAUTHORIZED', 'a deploy token (Authorization: Bearer svc_dpl_…) is required');
    const { token: deploy, server, plan } = access;
    if (deploy.revoked_at) return problem(c, 403, 'TOKEN_REVOKED', 'this deploy token was revoked');
    const serverId = c.req.param('serverId');
    if (deploy.server_id !== serverId) {
      if (!(await store.getServer(serverId))) return problem(c, 404, 'NOT_FOUND', 'no such server');
      return problem(c, 403, 'WRONG_SERVER', 'this deploy token belongs to another server');
    }
    if (plan === 'paid') store.touchDeployToken(deploy.id);
    return published(c, server, plan);
  });

  // The same export for the CLI in CI (`svc export --remote`), with a workspace token.
  app.get('/v1/servers/:serverId/export', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', `no server ${c.req.param('serverId')} is registered`);
    return published(c, server, await store.plan());
  });

  // Import jobs -------------------------------------------------------------------------------

  const enqueue = async (serverId: string, trigger: JobTrigger, deliveryId?: string) => {
    const queued = await store.enqueueJob({ serverId, trigger, ...(deliveryId ? { deliveryId } : {}) });
    if (!queued.duplicate) {
      log('import_queued', { jobId: queued.jobId, serverId, trigger });
      opts.onEnqueued?.();
    }
    return queued;
  };

  app.post('/v1/servers/:serverId/imports', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const { jobId } = await enqueue(server.id, 'manual');
    return c.json({ jobId }, 202);
  });

  app.get('/v1/servers/:serverId/imports', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    return c.json((await store.listJobs(server.id)).map(jobJson));
  });

  app.get('/v1/servers/:serverId/imports/:jobId', async (c) => {
    const job = await store.getJob(c.req.param('jobId'));
    if (!job || job.server_id !== c.req.param('serverId')) return problem(c, 404, 'NOT_FOUND', 'no such job');
    const report = job.report ? (JSON.parse(job.report) as ImportReport) : undefined;
    return c.json({ ...jobJson(job), ...(report ? { report, markdown: renderReportMarkdown(report) } : {}) });
  });

  // Webhooks ----------------------------------------------------------------------------------

  /** The server's webhook secret; undefined (logged) when it cannot be unsealed with this key. */
  const openSecret = (server: ServerRow): string | undefined => {
    try {
      return opts.secrets.open(server.webhook_secret_sealed);
    } catch {
      log('webhook_secret_unreadable', { serverId: server.id });
      return undefined;
    }
  };

  const answer = async (
    c: Context,
    servers: ServerRow[],
    decision: HookDecision,
    trigger: JobTrigger,
    deliveryId: string | undefined,
  ) => {
    if (decision.kind === 'ignore') return c.json({ status: 'ignored', reason: decision.reason }, 200);
    const targets = servers.filter((s) => s.branch === decision.branch);
    if (targets.length === 0) {
      return c.json({ status: 'ignored', reason: `${decision.branch} is not the tracked branch` }, 200);
    }
    const queued = await Promise.all(
      targets.map((s) => enqueue(s.id, trigger, deliveryId ? `${trigger}:${deliveryId}:${s.id}` : undefined)),
    );
    if (queued.every((q) => q.duplicate)) {
      return c.json({ status: 'duplicate', jobIds: queued.map((q) => q.jobId) }, 200);
    }
    return c.json({ status: 'queued', jobIds: queued.map((q) => q.jobId) }, 202);
  };

  app.post('/v1/hooks/github', async (c) => {
    const raw = await c.req.text();
    const signature = c.req.header('x-hub-signature-256');
    if (!signature) return problem(c, 401, 'BAD_SIGNATURE', 'X-Hub-Signature-256 is missing');
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return problem(c, 400, 'USAGE', 'the body is not JSON');
    }
    const urls = new Set(githubRepositoryUrls(payload));
    const candidates = (await store.listServers()).filter((s) =>
      urls.has(normaliseRepositoryUrl(s.repository)),
    );
    if (candidates.length === 0) {
      return c.json({ status: 'ignored', reason: 'no registered server tracks this repository' }, 200);
    }
    // Each server has its own secret; the delivery is from a hook configured with one of them.
    const verified: ServerRow[] = [];
    for (const server of candidates) {
      const secret = openSecret(server);
      if (secret === undefined) continue;
      if (await new Webhooks({ secret }).verify(raw, signature).catch(() => false)) verified.push(server);
    }
    if (verified.length === 0) return problem(c, 401, 'BAD_SIGNATURE', 'the signature does not match');
    return answer(
      c,
      verified,
      githubDecision(c.req.header('x-github-event'), payload),
      'github',
      c.req.header('x-github-delivery'),
    );
  });

  app.post('/v1/hooks/gitlab/:serverId', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    const secret = server ? openSecret(server) : undefined;
    const raw = await c.req.text();
    // GitLab's signing token sends Standard Webhooks headers; the classic secret token is sent as is.
    const signature = c.req.header('webhook-signature');
    let verified = false;
    if (server && secret !== undefined && signature) {
      try {
        new StandardWebhook(secret).verify(raw, {
          'webhook-id': c.req.header('webhook-id') ?? '',
          'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
          'webhook-signature': signature,
        });
        verified = true;
      } catch {
        verified = false;
      }
    } else {
      const given = c.req.header('x-gitlab-token');
      verified =
        server !== undefined && secret !== undefined && given !== undefined && safeEqual(given, secret);
    }
    if (!server || !verified)
      return problem(c, 401, 'BAD_SIGNATURE', 'X-Gitlab-Token or the webhook signature does not match');
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return problem(c, 400, 'USAGE', 'the body is not JSON');
    }
    const delivery =
      c.req.header('idempotency-key') ?? c.req.header('webhook-id') ?? c.req.header('x-gitlab-event-uuid');
    return answer(c, [server], gitlabDecision(c.req.header('x-gitlab-event'), payload), 'gitlab', delivery);
  });

  app.post('/v1/hooks/generic/:serverId', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    const raw = await c.req.text();
    const headers = {
      'webhook-id': c.req.header('webhook-id') ?? '',
      'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
      'webhook-signature': c.req.header('webhook-signature') ?? '',
    };
    try {
      const secret = server ? openSecret(server) : undefined;
      if (!server || secret === undefined) throw new Error('unknown server');
      new StandardWebhook(secret).verify(raw, headers);
    } catch {
      return problem(c, 401, 'BAD_SIGNATURE', 'the Standard Webhooks signature does not verify');
    }
    return answer(c, [server], { kind: 'merge', branch: server.branch }, 'generic', headers['webhook-id']);
  });

  // Status page -------------------------------------------------------------------------------

  app.get('/login', (c) => c.html(renderLoginPage(c.req.query('next') ?? '/')));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const next =
      typeof form.next === 'string' && /^\/servers\/[^/]+\/imports$/.test(form.next) ? form.next : '/';
    if (!token || !(await store.workspaceTokenValid(token))) {
      return c.html(renderLoginPage(next, 'That is not a workspace token of this service.'), 401);
    }
    setCookie(c, SESSION_COOKIE, token, { httpOnly: true, sameSite: 'Strict', path: '/' });
    return c.redirect(next, 303);
  });

  app.get('/servers/:serverId/imports', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const jobs = await store.listJobs(server.id);
    return c.html(renderStatusPage(server, jobs.map(jobJson)));
  });

  return app;
}
