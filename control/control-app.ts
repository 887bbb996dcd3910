/**
 * The control service's HTTP surface (shared/contracts/control-service.md) as a Hono app: the
 * workspace API, the deploy-token snapshot the runtime polls, three webhook receivers and the
 * import status page. No listen and no process.env here: start-control.ts does the I/O.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { isSvcError } from '../core/svc-error.js';
import { loadFolder } from '../folder/index.js';
import { renderReportMarkdown } from '../generator/report/index.js';
import type { ImportReport } from '../schemas/types.js';
import { metricsResponse } from '../runtime/metrics.js';
import type { ControlMetrics } from './control-metrics.js';
import { fetchRuntimeStats } from './runtime-stats.js';
import { type GitRepository, normaliseLocation } from './git/git-repository.js';
import { etagMatches, type PublishedState, type PublishedSnapshots } from './published-snapshot.js';
import type { SnapshotSigningKey } from './snapshot-signing-key.js';
import {
  RUNTIME_ID_HEADER,
  SNAPSHOT_COMMIT_HEADER,
  SNAPSHOT_SEQUENCE_HEADER,
  SNAPSHOT_SIGNATURE_HEADER,
  signSnapshot,
} from '../core/snapshot-signature.js';
import type { SecretBox } from '../core/secret-box.js';
import { credentialScope } from '../generator/sources/credential-scope.js';
import {
  parseSourceCredential,
  type SourceCredential,
  sealSourceCredential,
  sourceUrlOf,
} from './source-credential.js';
import { type PageContext, renderLoginPage, renderServersPage, renderStatusPage } from './status-page.js';
import type {
  ControlStore,
  DeployTokenInfo,
  JobRow,
  ServerRow,
  WorkspaceTokenInfo,
} from './store/control-store.js';
import type { JobTrigger, Plan } from './store/schema.js';
import { bearerToken, expiryFromDays } from './tokens.js';
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
  /** How long a status-page sign-in lasts (default 12 hours). */
  sessionTtlMs?: number;
  /**
   * The service runs behind a TLS-terminating proxy the operator trusts
   * (SVC_CONTROL_TRUST_PROXY=1): `X-Forwarded-Proto: https` then counts as https for the
   * cookies' `Secure` flag. Off by default, since any client can send that header.
   */
  trustProxy?: boolean;
  /** Signs every snapshot served (contracts/fleet.md); `<data>/snapshot-signing.pem`. */
  signingKey?: SnapshotSigningKey;
  /** Prometheus series (GET /metrics); absent: no /metrics route. */
  metrics?: ControlMetrics;
  /** SVC_METRICS_TOKEN: GET /metrics then needs it as a bearer token. */
  metricsToken?: string;
  /** SVC_PROMETHEUS_URL: the Prometheus scraping the runtimes, for the servers page's panel. */
  prometheusUrl?: string;
}

/** Which runtime last fetched which commit of a server (kept in memory, per control instance). */
export interface RuntimeFetch {
  runtimeId: string;
  commit: string;
  /** 200: fetched the snapshot; 304: already had it. */
  status: number;
  at: string;
}
const MAX_RUNTIMES_PER_SERVER = 1000;

const SESSION_COOKIE = 'svc_session';
const LOGIN_CSRF_COOKIE = 'svc_login_csrf';
const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const LOGIN_FORM_TTL_S = 60 * 60;
/** Where a sign-in lands unless it came from a status page. */
const HOME = '/servers';

/** The CSRF token of a session's forms: derived from the session id, which only the cookie holds. */
function sessionCsrf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('svc-control csrf v1').digest('base64url');
}

/** Headers every answer carries; pages add a CSP with a per-response nonce. */
const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
};
function contentSecurityPolicy(nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "connect-src 'self'",
    "img-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

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

export function workspaceTokenJson(t: WorkspaceTokenInfo) {
  return {
    id: t.id,
    name: t.name,
    createdAt: t.created_at,
    lastUsedAt: t.last_used_at,
    expiresAt: t.expires_at,
    revokedAt: t.revoked_at,
  };
}

export function deployTokenJson(t: DeployTokenInfo) {
  return {
    id: t.id,
    serverId: t.server_id,
    name: t.name,
    createdAt: t.created_at,
    lastUsedAt: t.last_used_at,
    revokedAt: t.revoked_at,
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
  const sessionTtlMs = opts.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  const app = new Hono();

  app.use('*', async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(SECURITY_HEADERS)) c.res.headers.set(name, value);
  });

  /** https as the client sees it: the request URL, or a trusted proxy's X-Forwarded-Proto. */
  const viaHttps = (c: Context): boolean => {
    if (new URL(c.req.url).protocol === 'https:') return true;
    if (!opts.trustProxy) return false;
    return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
  };
  /** An HTML page with its CSP. */
  const page = (
    c: Context,
    render: (ctx: PageContext) => string,
    csrf: string | undefined,
    status: 200 | 401 | 403 = 200,
  ) => {
    const nonce = randomBytes(16).toString('base64');
    c.header('Content-Security-Policy', contentSecurityPolicy(nonce));
    c.header('Cache-Control', 'no-store');
    return c.html(render({ nonce, ...(csrf ? { csrf } : {}) }), status);
  };

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
  /** What a webhook delivery came to, for the metrics: queued, duplicate or ignored. */
  const hookResults = new WeakMap<Request, string>();
  const metrics = opts.metrics;
  if (metrics) {
    app.get('/metrics', (c) =>
      metricsResponse(metrics.registry, opts.metricsToken, c.req.header('authorization')),
    );
    app.use('/v1/servers/:serverId/export/snapshot', async (c, next) => {
      await next();
      metrics.snapshotPoll(c.res.status);
    });
    app.use('/v1/hooks/*', async (c, next) => {
      await next();
      const source = /^\/v1\/hooks\/(github|gitlab|generic)\b/.exec(c.req.path)?.[1] ?? 'unknown';
      const status = c.res.status;
      const result =
        hookResults.get(c.req.raw) ??
        (status === 401 ? 'bad_signature' : status === 400 || status === 413 ? 'invalid' : 'error');
      metrics.webhook(source, result);
    });
  }

  // GitHub caps payloads at 25 MB; nothing this service reads is larger.
  const limit = bodyLimit({
    maxSize: 25 * 1024 * 1024,
    onError: (c) => problem(c, 413, 'TOO_LARGE', 'the request body is larger than 25 MB'),
  });
  app.use('/v1/*', limit);
  const formLimit = bodyLimit({
    maxSize: 16 * 1024,
    onError: (c) => problem(c, 413, 'TOO_LARGE', 'the form is larger than 16 KB'),
  });
  app.use('/login', formLimit);
  app.use('/logout', formLimit);

  // Workspace token: the bearer header, or (for the status page's GETs only) the session cookie
  // set by /login, which holds an opaque session id (stored hashed, with an expiry), never the
  // token. The cookie is SameSite=Strict and never authorizes a change.
  const requireWorkspace = async (c: Context, next: () => Promise<void>) => {
    const token = bearerToken(c.req.header('authorization'));
    let ok = token !== undefined && (await store.workspaceAuth(token)) !== undefined;
    if (!token && c.req.method === 'GET') {
      const session = getCookie(c, SESSION_COOKIE);
      if (session && (await store.sessionAuth(session))) {
        ok = true;
        csrfOf.set(c.req.raw, sessionCsrf(session));
      }
    }
    if (!ok) {
      if (c.req.method === 'GET' && (c.req.path === HOME || c.req.path.startsWith('/servers/'))) {
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
  /** The session's CSRF token when the page was opened with the session cookie. */
  const csrfOf = new WeakMap<Request, string>();
  const pageCsrf = (c: Context): string | undefined => csrfOf.get(c.req.raw);

  app.use('/v1/servers', requireWorkspace);
  app.use('/v1/servers/*', async (c, next) => {
    // The snapshot takes a deploy token instead.
    if (c.req.path.endsWith('/export/snapshot')) return next();
    return requireWorkspace(c, next);
  });
  app.use('/v1/deploy-tokens/*', requireWorkspace);
  app.use('/v1/workspace/*', requireWorkspace);
  app.use(HOME, requireWorkspace);
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
    if ([repository, branch, path].some((v) => v.includes('\u0000')))
      return problem(c, 400, 'USAGE', 'repository, branch and path must not contain a NUL byte');
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

  app.get('/v1/servers/:serverId/deploy-tokens', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    return c.json((await store.listDeployTokens(server.id)).map(deployTokenJson));
  });

  // Workspace tokens: listed (never their value), made with an optional expiry, revoked.
  app.get('/v1/workspace/tokens', async (c) => {
    await store.flushTouches();
    return c.json((await store.listWorkspaceTokens()).map(workspaceTokenJson));
  });

  app.post('/v1/workspace/tokens', async (c) => {
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
      expiresAt = expiryFromDays(body.expiresInDays, Date.now());
      if (!expiresAt)
        return problem(c, 400, 'USAGE', 'expiresInDays is a whole number of days from 1 to 3650');
    }
    const created = await store.createWorkspaceToken(name.trim(), expiresAt ? { expiresAt } : {});
    log('workspace_token_created', { id: created.id });
    return c.json(created, 201);
  });

  app.delete('/v1/workspace/tokens/:id', async (c) => {
    const id = c.req.param('id');
    if (!(await store.revokeWorkspaceToken(id)))
      return problem(c, 404, 'NOT_FOUND', 'no such workspace token');
    log('workspace_token_revoked', { id });
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

  const runtimes = new Map<string, Map<string, RuntimeFetch>>();
  const recordFetch = (serverId: string, runtimeId: string | undefined, commit: string, status: number) => {
    if (!runtimeId) return;
    const id = runtimeId.slice(0, 200);
    let seen = runtimes.get(serverId);
    if (!seen) {
      seen = new Map();
      runtimes.set(serverId, seen);
    }
    seen.delete(id);
    seen.set(id, { runtimeId: id, commit, status, at: new Date().toISOString() });
    if (seen.size > MAX_RUNTIMES_PER_SERVER) seen.delete(seen.keys().next().value as string);
  };
  const runtimesOf = (serverId: string): RuntimeFetch[] =>
    [...(runtimes.get(serverId)?.values() ?? [])].sort((a, b) => b.at.localeCompare(a.at));
  const signatures = new WeakMap<PublishedState, string>();
  const signatureOf = (serverId: string, state: PublishedState & { body: string }): string | undefined => {
    if (!opts.signingKey) return undefined;
    let signature = signatures.get(state);
    if (signature === undefined) {
      signature = signSnapshot(opts.signingKey.privateKey, {
        serverId,
        commit: state.commit,
        sequence: state.sequence,
        body: state.body,
      });
      signatures.set(state, signature);
    }
    return signature;
  };

  /** The published export of a server, with the plan's and the branch's refusals. */
  const published = async (c: Context, server: ServerRow, plan: Plan, runtimeId?: string) => {
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
    // The commit the snapshot was exported at: runtimes stamp it on every answer (Svc-Config-Commit).
    c.header(SNAPSHOT_COMMIT_HEADER, state.commit);
    c.header(SNAPSHOT_SEQUENCE_HEADER, String(state.sequence));
    const signature = signatureOf(server.id, state as PublishedState & { body: string });
    if (signature) c.header(SNAPSHOT_SIGNATURE_HEADER, signature);
    const fresh = !etagMatches(c.req.header('if-none-match'), state.etag);
    recordFetch(server.id, runtimeId, state.commit, fresh ? 200 : 304);
    if (!fresh) return c.body(null, 304);
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
    return published(c, server, plan, c.req.header(RUNTIME_ID_HEADER));
  });

  // Which runtimes last fetched which commit (each names itself in Svc-Runtime-Id when it polls).
  app.get('/v1/servers/:serverId/runtimes', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', `no server ${c.req.param('serverId')} is registered`);
    return c.json(runtimesOf(server.id));
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
    if (decision.kind === 'ignore') {
      hookResults.set(c.req.raw, 'ignored');
      return c.json({ status: 'ignored', reason: decision.reason }, 200);
    }
    const targets = servers.filter((s) => s.branch === decision.branch);
    if (targets.length === 0) {
      hookResults.set(c.req.raw, 'ignored');
      return c.json({ status: 'ignored', reason: `${decision.branch} is not the tracked branch` }, 200);
    }
    const queued = await Promise.all(
      targets.map((s) => enqueue(s.id, trigger, deliveryId ? `${trigger}:${deliveryId}:${s.id}` : undefined)),
    );
    if (queued.every((q) => q.duplicate)) {
      hookResults.set(c.req.raw, 'duplicate');
      return c.json({ status: 'duplicate', jobIds: queued.map((q) => q.jobId) }, 200);
    }
    hookResults.set(c.req.raw, 'queued');
    return c.json({ status: 'queued', jobIds: queued.map((q) => q.jobId) }, 202);
  };

  /**
   * GitHub signs with one secret per registered server. The delivery names its repository, so
   * only the servers of that repository are candidates, and the HMAC of the body is computed once
   * per distinct secret among them. An unknown repository gets the same answer as a wrong
   * signature (and costs one HMAC too), so the hook does not tell which repositories exist.
   *
   * Dedupe: a delivery queues one job per server for each distinct *signed body*, whatever its
   * X-GitHub-Delivery says: a replay under a new or missing delivery id is a duplicate, and a
   * different body needs the secret. (GitHub's own redelivery resends the same body.)
   */
  app.post('/v1/hooks/github', async (c) => {
    const raw = await c.req.text();
    const signature = c.req.header('x-hub-signature-256');
    const badSignature = () => problem(c, 401, 'BAD_SIGNATURE', 'the signature does not match');
    if (!signature) return problem(c, 401, 'BAD_SIGNATURE', 'X-Hub-Signature-256 is missing');
    const given = /^sha256=([0-9a-f]{64})$/i.exec(signature.trim())?.[1]?.toLowerCase();
    if (!given) return badSignature();
    let payload: unknown;
    try {
      payload = JSON.parse(raw);
    } catch {
      return badSignature();
    }
    const urls = new Set(githubRepositoryUrls(payload));
    const candidates = (await store.listServers()).filter((s) =>
      urls.has(normaliseRepositoryUrl(s.repository)),
    );
    const bySecret = new Map<string, ServerRow[]>();
    for (const server of candidates) {
      const secret = openSecret(server);
      if (secret === undefined) continue;
      bySecret.set(secret, [...(bySecret.get(secret) ?? []), server]);
    }
    if (bySecret.size === 0) bySecret.set(randomBytes(32).toString('hex'), []);
    const verified: ServerRow[] = [];
    const givenBytes = Buffer.from(given, 'hex');
    for (const [secret, servers] of bySecret) {
      const expected = createHmac('sha256', secret).update(raw).digest();
      if (timingSafeEqual(expected, givenBytes)) verified.push(...servers);
    }
    if (verified.length === 0) return badSignature();
    const bodyDigest = createHash('sha256').update(raw).digest('base64url');
    return answer(c, verified, githubDecision(c.req.header('x-github-event'), payload), 'github', bodyDigest);
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

  /** A status-page path to land on after signing in; anything else lands on the server list. */
  const landing = (next: unknown): string =>
    typeof next === 'string' && (next === HOME || /^\/servers\/[^/?#\\]+\/imports$/.test(next)) ? next : HOME;

  /**
   * The sign-in form with a fresh CSRF value, set as a short-lived SameSite=Strict cookie too:
   * a POST /login counts only when the form's value equals the cookie's (double submit), so
   * another site cannot sign a browser in with its own token.
   */
  const loginPage = (c: Context, next: string, error?: string, status: 200 | 401 | 403 = 200) => {
    const csrf = randomBytes(32).toString('base64url');
    setCookie(c, LOGIN_CSRF_COOKIE, csrf, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/login',
      maxAge: LOGIN_FORM_TTL_S,
      secure: viaHttps(c),
    });
    return page(c, (ctx) => renderLoginPage(next, ctx, error), csrf, status);
  };

  app.get('/', (c) => c.redirect(HOME, 303));
  app.get('/login', (c) => loginPage(c, landing(c.req.query('next'))));
  app.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const next = landing(form.next);
    const expected = getCookie(c, LOGIN_CSRF_COOKIE);
    if (typeof form.csrf !== 'string' || !expected || !safeEqual(form.csrf, expected)) {
      return loginPage(
        c,
        next,
        'The sign-in form expired or did not come from this page: sign in again.',
        403,
      );
    }
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const auth = token ? await store.workspaceAuth(token) : undefined;
    if (!auth) {
      return loginPage(c, next, 'That is not a live workspace token of this service.', 401);
    }
    const session = await store.createSession(auth.id, sessionTtlMs);
    deleteCookie(c, LOGIN_CSRF_COOKIE, { path: '/login' });
    setCookie(c, SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(sessionTtlMs / 1000),
      secure: viaHttps(c),
    });
    log('signed_in', { tokenId: auth.id });
    return c.redirect(next, 303);
  });

  // Sign-out ends the session on the server (the cookie alone is worth nothing after it).
  app.post('/logout', async (c) => {
    const session = getCookie(c, SESSION_COOKIE);
    if (session) {
      const form = await c.req.parseBody();
      if (typeof form.csrf !== 'string' || !safeEqual(form.csrf, sessionCsrf(session))) {
        return problem(c, 403, 'CSRF', 'the sign-out form did not come from this service');
      }
      await store.deleteSession(session);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: viaHttps(c) });
    return c.redirect('/login', 303);
  });

  app.get(HOME, async (c) => {
    const [servers, stats] = await Promise.all([
      store.listServers(),
      opts.prometheusUrl ? fetchRuntimeStats(opts.prometheusUrl) : undefined,
    ]);
    return page(c, (ctx) => renderServersPage(servers, ctx, stats), pageCsrf(c));
  });

  app.get('/servers/:serverId/imports', async (c) => {
    const server = await store.getServer(c.req.param('serverId'));
    if (!server) return problem(c, 404, 'NOT_FOUND', 'no such server');
    const jobs = (await store.listJobs(server.id)).map(jobJson);
    return page(c, (ctx) => renderStatusPage(server, jobs, ctx, runtimesOf(server.id)), pageCsrf(c));
  });

  return app;
}
