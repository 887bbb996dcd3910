/**
 * Two control service replicas on one real PostgreSQL (a throwaway cluster on loopback; skipped,
 * with the reason, only when PostgreSQL is not installed — .ci/run installs it): a server
 * registered on one is served by the other (the webhook secret sealed with the shared
 * SVC_CONTROL_KEY), and jobs queued on both are each run exactly once by the two workers
 * (FOR UPDATE SKIP LOCKED), every one of them Complete.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControl, startControl } from '../control/index.js';
import {
  type PostgresCluster,
  postgresMissingReason,
  startPostgres,
} from '../control/testing/postgres-cluster.js';
import { createServerRepo, FOLDER, type ServerRepo } from '../control/testing/server-repo.js';

const missing = postgresMissingReason();
if (missing) console.warn(`control on PostgreSQL: skipped: ${missing}`);

describe.skipIf(missing !== undefined)('two control replicas on PostgreSQL', () => {
  let cluster: PostgresCluster;
  let repo: ServerRepo;
  let root: string;
  let a: RunningControl;
  let b: RunningControl;
  const ran: { replica: string; jobId: unknown }[] = [];
  const key = randomBytes(32).toString('base64');

  beforeAll(async () => {
    cluster = await startPostgres();
    repo = await createServerRepo();
    root = mkdtempSync(join(tmpdir(), 'svc-control-pg-'));
    const replica = (name: string) =>
      startControl({
        port: 0,
        dataDir: join(root, name),
        databaseUrl: cluster.url,
        controlKey: key,
        workerPollMs: 100,
        logger: {
          log: (_level, event, fields) => {
            if (event === 'import_started') ran.push({ replica: name, jobId: fields?.jobId });
          },
        },
      });
    [a, b] = await Promise.all([replica('a'), replica('b')]);
  }, 60_000);

  afterAll(async () => {
    await a?.close();
    await b?.close();
    await cluster?.stop();
    repo?.cleanup();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('shares servers, tokens and secrets, and runs each job once', async () => {
    const pat = (await a.store.createWorkspaceToken('pg')).token;
    const call = (base: string, path: string, init: RequestInit = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json', ...init.headers },
      });
    const created = await call(a.url, '/v1/servers', {
      method: 'POST',
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
    });
    expect(created.status).toBe(201);
    const { webhookSecret } = (await created.json()) as { webhookSecret: string };
    const deploy = (await (
      await call(a.url, '/v1/servers/pets/deploy-tokens', { method: 'POST', body: '{}' })
    ).json()) as {
      token: string;
    };
    const snap = await fetch(`${b.url}/v1/servers/pets/export/snapshot`, {
      headers: { authorization: `Bearer ${deploy.token}` },
    });
    expect(snap.status).toBe(200);
    expect(snap.headers.get('etag')).toMatch(/^"/);
    // A NUL byte in an id or a name: 404/400 as on SQLite, not PostgreSQL's "invalid byte sequence" as a 500.
    expect((await call(b.url, '/v1/servers/pe%00ts/imports')).status).toBe(404);
    expect((await call(b.url, '/v1/servers/pets/imports/a%00b')).status).toBe(404);
    expect((await call(b.url, '/v1/deploy-tokens/a%00b', { method: 'DELETE' })).status).toBe(404);
    expect(
      (await call(b.url, '/v1/servers/pets/deploy-tokens', { method: 'POST', body: '{"name":"a\\u0000b"}' }))
        .status,
    ).toBe(400);

    // A generic webhook verified by the other replica.
    const id = `msg_${randomUUID()}`;
    const now = new Date();
    const hook = await fetch(`${b.url}/v1/hooks/generic/pets`, {
      method: 'POST',
      body: '{}',
      headers: {
        'webhook-id': id,
        'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
        'webhook-signature': new StandardWebhook(webhookSecret).sign(id, now, '{}'),
      },
    });
    expect(hook.status).toBe(202);

    const queued = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(i % 2 ? a.url : b.url, '/v1/servers/pets/imports', { method: 'POST' }).then(
          async (r) => ((await r.json()) as { jobId: string }).jobId,
        ),
      ),
    );
    const deadline = Date.now() + 60_000;
    let jobs: { jobId: string; status: string }[] = [];
    for (;;) {
      jobs = (await (await call(a.url, '/v1/servers/pets/imports')).json()) as typeof jobs;
      if (jobs.length === 9 && jobs.every((j) => j.status === 'Complete' || j.status === 'Failed')) break;
      if (Date.now() > deadline) throw new Error(`jobs still running: ${JSON.stringify(jobs)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(jobs.every((j) => j.status === 'Complete')).toBe(true);
    for (const jobId of queued) expect(jobs.some((j) => j.jobId === jobId)).toBe(true);
    // Each job started exactly once, across both replicas.
    expect(ran).toHaveLength(9);
    expect(new Set(ran.map((r) => r.jobId)).size).toBe(9);
    const rows = await a.store.db.selectFrom('import_jobs').select('attempts').execute();
    expect(rows.every((r) => Number(r.attempts) === 1)).toBe(true);
  }, 90_000);
});
