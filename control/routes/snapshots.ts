/**
 * The published export (mounted at /v1/servers/:serverId): the snapshot runtimes poll with a
 * deploy token, the same export for the CLI in CI with a workspace token, and which runtimes last
 * fetched which commit (each names itself in Svc-Runtime-Id when it polls).
 */
import { type Context, Hono } from 'hono';
import {
  RUNTIME_ID_HEADER,
  SNAPSHOT_COMMIT_HEADER,
  SNAPSHOT_SEQUENCE_HEADER,
  SNAPSHOT_SIGNATURE_HEADER,
  signSnapshot,
} from '../../core/snapshot-signature.js';
import { problem } from '../middleware/problem.js';
import { etagMatches, type PublishedState } from '../published-snapshot.js';
import type { SnapshotSigningKey } from '../snapshot-signing-key.js';
import type { ServerRow } from '../store/control-store.js';
import type { Plan } from '../store/schema.js';
import { bearerToken } from '../tokens.js';
import type { RouteContext } from './route-context.js';

export function snapshotRoutes(ctx: RouteContext): Hono {
  const { store } = ctx.options;
  const published = publishedExport(ctx);
  const routes = new Hono();

  routes.get('/export/snapshot', async (c) => {
    const token = bearerToken(c.req.header('authorization'));
    const access = token ? await store.snapshotAccess(token) : undefined;
    if (!access)
      return problem(c, 401, 'UNAUTHORIZED', 'a deploy token (Authorization: Bearer svc_dpl_…) is required');
    const { token: deploy, server, plan } = access;
    if (deploy.revoked_at) return problem(c, 403, 'TOKEN_REVOKED', 'this deploy token was revoked');
    const serverId = c.req.param('serverId') ?? '';
    if (deploy.server_id !== serverId) {
      if (!(await store.getServer(serverId))) return problem(c, 404, 'NOT_FOUND', 'no such server');
      return problem(c, 403, 'WRONG_SERVER', 'this deploy token belongs to another server');
    }
    if (plan === 'paid') store.touchDeployToken(deploy.id);
    return published(c, server, plan, c.req.header(RUNTIME_ID_HEADER));
  });

  routes.get('/runtimes', async (c) => {
    const serverId = c.req.param('serverId') ?? '';
    const server = await store.getServer(serverId);
    if (!server) return problem(c, 404, 'NOT_FOUND', `no server ${serverId} is registered`);
    return c.json(ctx.runtimes.of(server.id));
  });

  // The same export for the CLI in CI (`svc export --remote`), with a workspace token.
  routes.get('/export', async (c) => {
    const serverId = c.req.param('serverId') ?? '';
    const server = await store.getServer(serverId);
    if (!server) return problem(c, 404, 'NOT_FOUND', `no server ${serverId} is registered`);
    return published(c, server, await store.plan());
  });

  return routes;
}

/** The published export of a server, with the plan's and the branch's refusals. */
function publishedExport({ options, runtimes }: RouteContext) {
  const signatureOf = snapshotSignatures(options.signingKey);
  return async function published(c: Context, server: ServerRow, plan: Plan, runtimeId?: string) {
    if (plan !== 'paid') {
      return problem(
        c,
        403,
        'PLAN_REQUIRED',
        'the workspace is on the free plan: export and sync need the paid plan',
      );
    }
    const state = await options.snapshots.get(server);
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
    runtimes.record(server.id, runtimeId, state.commit, fresh ? 200 : 304);
    if (!fresh) return c.body(null, 304);
    c.header('Content-Type', 'application/json; charset=utf-8');
    return c.body(state.body, 200);
  };
}

/** Each published state is signed once (contracts/fleet.md); no key, no signature. */
function snapshotSignatures(signingKey: SnapshotSigningKey | undefined) {
  const signatures = new WeakMap<PublishedState, string>();
  return (serverId: string, state: PublishedState & { body: string }): string | undefined => {
    if (!signingKey) return undefined;
    let signature = signatures.get(state);
    if (signature === undefined) {
      signature = signSnapshot(signingKey.privateKey, {
        serverId,
        commit: state.commit,
        sequence: state.sequence,
        body: state.body,
      });
      signatures.set(state, signature);
    }
    return signature;
  };
}
