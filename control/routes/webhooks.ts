/**
 * The webhook receivers (mounted at /v1/hooks): GitHub (HMAC of the body with the server's
 * secret), GitLab (Standard Webhooks signature or the classic secret token) and a generic
 * Standard Webhooks sender. A verified push to the tracked branch queues an import job per
 * server; a redelivery queues nothing new.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { problem } from '../middleware/problem.js';
import { safeEqual } from '../safe-equal.js';
import type { ServerRow } from '../store/control-store.js';
import type { JobTrigger } from '../store/schema.js';
import {
  githubDecision,
  githubRepositoryUrls,
  gitlabDecision,
  type HookDecision,
  normaliseRepositoryUrl,
} from '../webhook-events.js';
import type { RouteContext } from './route-context.js';

export function webhookRoutes(ctx: RouteContext): Hono {
  const routes = new Hono();
  routes.post('/github', (c) => githubHook(c, ctx));
  routes.post('/gitlab/:serverId', (c) => gitlabHook(c, ctx));
  routes.post('/generic/:serverId', (c) => genericHook(c, ctx));
  return routes;
}

/** The server's webhook secret; undefined (logged) when it cannot be unsealed with this key. */
function openSecret({ options, log }: RouteContext, server: ServerRow): string | undefined {
  try {
    return options.secrets.open(server.webhook_secret_sealed);
  } catch {
    log('webhook_secret_unreadable', { serverId: server.id });
    return undefined;
  }
}

/** A verified delivery's answer: ignored, or one job per server tracking the pushed branch. */
async function answer(
  c: Context,
  { enqueue, hookResults }: RouteContext,
  servers: ServerRow[],
  decision: HookDecision,
  trigger: JobTrigger,
  deliveryId: string | undefined,
) {
  if (decision.kind === 'ignore') {
    hookResults.set(c, 'ignored');
    return c.json({ status: 'ignored', reason: decision.reason }, 200);
  }
  const targets = servers.filter((s) => s.branch === decision.branch);
  if (targets.length === 0) {
    hookResults.set(c, 'ignored');
    return c.json({ status: 'ignored', reason: `${decision.branch} is not the tracked branch` }, 200);
  }
  const queued = await Promise.all(
    targets.map((s) => enqueue(s.id, trigger, deliveryId ? `${trigger}:${deliveryId}:${s.id}` : undefined)),
  );
  if (queued.every((q) => q.duplicate)) {
    hookResults.set(c, 'duplicate');
    return c.json({ status: 'duplicate', jobIds: queued.map((q) => q.jobId) }, 200);
  }
  hookResults.set(c, 'queued');
  return c.json({ status: 'queued', jobIds: queued.map((q) => q.jobId) }, 202);
}

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
async function githubHook(c: Context, ctx: RouteContext) {
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
  const candidates = (await ctx.options.store.listServers()).filter((s) =>
    urls.has(normaliseRepositoryUrl(s.repository)),
  );
  const bySecret = new Map<string, ServerRow[]>();
  for (const server of candidates) {
    const secret = openSecret(ctx, server);
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
  return answer(
    c,
    ctx,
    verified,
    githubDecision(c.req.header('x-github-event'), payload),
    'github',
    bodyDigest,
  );
}

async function gitlabHook(c: Context, ctx: RouteContext) {
  const server = await ctx.options.store.getServer(c.req.param('serverId') ?? '');
  const secret = server ? openSecret(ctx, server) : undefined;
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
  return answer(
    c,
    ctx,
    [server],
    gitlabDecision(c.req.header('x-gitlab-event'), payload),
    'gitlab',
    delivery,
  );
}

async function genericHook(c: Context, ctx: RouteContext) {
  const server = await ctx.options.store.getServer(c.req.param('serverId') ?? '');
  const raw = await c.req.text();
  const headers = {
    'webhook-id': c.req.header('webhook-id') ?? '',
    'webhook-timestamp': c.req.header('webhook-timestamp') ?? '',
    'webhook-signature': c.req.header('webhook-signature') ?? '',
  };
  try {
    const secret = server ? openSecret(ctx, server) : undefined;
    if (!server || secret === undefined) throw new Error('unknown server');
    new StandardWebhook(secret).verify(raw, headers);
  } catch {
    return problem(c, 401, 'BAD_SIGNATURE', 'the Standard Webhooks signature does not verify');
  }
  return answer(c, ctx, [server], { kind: 'merge', branch: server.branch }, 'generic', headers['webhook-id']);
}
