/**
 * The store on both databases: the embedded SQLite always, and a real PostgreSQL cluster started
 * on loopback (skipped, with the reason, only when PostgreSQL is not installed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type PostgresCluster, postgresMissingReason, startPostgres } from '../testing/postgres-cluster.js';
import { ControlStore } from './control-store.js';
import { MIGRATION_NAMES } from './migrations.js';
import { openDatabase } from './open-database.js';

const pgMissing = postgresMissingReason();
if (pgMissing) console.warn(`control-store: PostgreSQL tests skipped: ${pgMissing}`);

/** The stores' clock: real time, moved forward by the tests that need time to pass. */
let skewMs = 0;
const now = () => Date.now() + skewMs;

interface Backend {
  open(): Promise<ControlStore>;
  cleanup(): Promise<void>;
}

function sqliteBackend(): Backend {
  const dir = mkdtempSync(join(tmpdir(), 'svc-store-'));
  return {
    async open() {
      const opened = await openDatabase({ dataDir: dir });
      return new ControlStore({ db: opened.db, kind: opened.kind, now });
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let cluster: PostgresCluster | undefined;
function postgresBackend(): Backend {
  return {
    async open() {
      cluster ??= await startPostgres();
      const opened = await openDatabase({ dataDir: '/nonexistent', databaseUrl: cluster.url });
      return new ControlStore({ db: opened.db, kind: opened.kind, now });
    },
    async cleanup() {
      await cluster?.stop();
      cluster = undefined;
    },
  };
}

const backends: [string, () => Backend, string | undefined][] = [
  ['sqlite (embedded)', sqliteBackend, undefined],
  ['postgresql', postgresBackend, pgMissing],
];

for (const [name, make, skip] of backends) {
  describe.skipIf(skip !== undefined)(`control store on ${name}`, () => {
    const backend = make();
    let a: ControlStore;
    let b: ControlStore;

    beforeAll(async () => {
      a = await backend.open();
      // A second connection/pool on the same database, as a second replica would have.
      b = await backend.open();
      await a.addServer({
        id: 'pets',
        repository: '/repo',
        branch: 'main',
        path: 'mcp/pets',
        webhook_secret_sealed: 'x',
      });
    }, 60_000);

    afterAll(async () => {
      await a?.close();
      await b?.close();
      await backend.cleanup();
    });

    it('migrates once and again without error', async () => {
      const again = await backend.open();
      const rows = await sql<{ n: number }>`select count(*) as n from svc_migrations`.execute(again.db);
      expect(Number(rows.rows[0]?.n)).toBe(MIGRATION_NAMES.length);
      await again.close();
    });

    it('stores tokens hashed and finds them by value', async () => {
      const { token } = await a.createWorkspaceToken('ci');
      expect(token).toMatch(/^svc_pat_[A-Za-z0-9_-]{43}$/);
      expect(await b.workspaceTokenValid(token)).toBe(true);
      expect(await b.workspaceTokenValid(`${token}x`)).toBe(false);
      const stored = await a.db.selectFrom('workspace_tokens').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(token);
      const deploy = await a.createDeployToken('pets', 'prod');
      expect((await b.findDeployToken(deploy.token))?.id).toBe(deploy.id);
      expect(await a.revokeDeployToken(deploy.id)).toBe(true);
      expect((await b.findDeployToken(deploy.token))?.revoked_at).toBeTruthy();
      expect(await a.revokeDeployToken('nope')).toBe(false);
    });

    it('lists, expires and revokes workspace tokens, and writes when they were last used', async () => {
      const live = await a.createWorkspaceToken('live');
      const expired = await a.createWorkspaceToken('old', { expiresAt: '2000-01-01T00:00:00.000Z' });
      const later = await a.createWorkspaceToken('later', { expiresAt: '2999-01-01T00:00:00.000Z' });
      expect(await b.workspaceTokenValid(live.token)).toBe(true);
      expect(await b.workspaceTokenValid(expired.token)).toBe(false);
      expect(await b.workspaceTokenValid(later.token)).toBe(true);
      await b.flushTouches();
      const listed = await a.listWorkspaceTokens();
      expect(JSON.stringify(listed)).not.toContain('token_hash');
      const byId = new Map(listed.map((t) => [t.id, t]));
      expect(byId.get(live.id)).toMatchObject({ name: 'live', expires_at: null, revoked_at: null });
      expect(byId.get(live.id)?.last_used_at).toMatch(/^\d{4}-/);
      expect(byId.get(expired.id)?.last_used_at).toBeNull();
      expect(byId.get(later.id)?.expires_at).toBe('2999-01-01T00:00:00.000Z');

      const session = await a.createSession(live.id, 60_000);
      expect(await b.sessionAuth(session.id)).toEqual({ tokenId: live.id, expiresAt: session.expiresAt });
      expect(await b.sessionAuth(`${session.id}x`)).toBeUndefined();
      const stored = await a.db.selectFrom('sessions').selectAll().execute();
      expect(JSON.stringify(stored)).not.toContain(session.id);
      const stale = await a.createSession(live.id, -1);
      expect(await b.sessionAuth(stale.id)).toBeUndefined();
      const ended = await a.createSession(live.id, 60_000);
      await b.deleteSession(ended.id);
      expect(await a.sessionAuth(ended.id)).toBeUndefined();

      expect(await a.revokeWorkspaceToken(live.id)).toBe(true);
      expect(await b.workspaceTokenValid(live.token)).toBe(false);
      expect(await b.sessionAuth(session.id)).toBeUndefined();
      expect(await a.revokeWorkspaceToken(live.id)).toBe(true);
      expect(await a.revokeWorkspaceToken('nope')).toBe(false);
      expect((await a.listWorkspaceTokens()).find((t) => t.id === live.id)?.revoked_at).toMatch(/^\d{4}-/);
    });

    it('lists deploy tokens per server without their hashes', async () => {
      const made = await a.createDeployToken('pets', 'listed');
      const listed = await b.listDeployTokens('pets');
      expect(listed.find((t) => t.id === made.id)).toMatchObject({ server_id: 'pets', name: 'listed' });
      expect(JSON.stringify(listed)).not.toContain('token_hash');
      expect(await b.listDeployTokens('nope')).toEqual([]);
    });

    it('finds nothing for an id with a NUL byte and refuses to store one (no database error)', async () => {
      const nul = 'pe\u0000ts';
      expect(await a.getServer(nul)).toBeUndefined();
      expect(await a.getJob(nul)).toBeUndefined();
      expect(await a.listJobs(nul)).toEqual([]);
      expect(await a.getDeployToken(nul)).toBeUndefined();
      expect(await a.revokeDeployToken(nul)).toBe(false);
      expect(await a.revokeWorkspaceToken(nul)).toBe(false);
      await expect(a.createDeployToken('pets', nul)).rejects.toMatchObject({ code: 'USAGE' });
      await expect(a.createWorkspaceToken(nul)).rejects.toMatchObject({ code: 'USAGE' });
      await expect(
        a.addServer({ id: nul, repository: '/r', branch: 'main', path: '.', webhook_secret_sealed: 'x' }),
      ).rejects.toMatchObject({ code: 'USAGE' });
      await expect(
        a.enqueueJob({ serverId: 'pets', trigger: 'generic', deliveryId: nul }),
      ).rejects.toMatchObject({
        code: 'USAGE',
      });
    });

    it('keeps one sealed source credential per server: set, replaced, deleted', async () => {
      expect(await a.sourceCredential('pets')).toBeUndefined();
      await a.setSourceCredential('pets', 'v1.first');
      expect(await b.sourceCredential('pets')).toBe('v1.first');
      await b.setSourceCredential('pets', 'v1.second');
      expect(await a.sourceCredential('pets')).toBe('v1.second');
      expect(await a.deleteSourceCredential('pets')).toBe(true);
      expect(await b.deleteSourceCredential('pets')).toBe(false);
      expect(await b.sourceCredential('pets')).toBeUndefined();
    });

    it("prunes a server's finished jobs beyond the newest N, never an unfinished one or another server's", async () => {
      await a.addServer({
        id: 'prune',
        repository: '/repo',
        branch: 'main',
        path: 'mcp/prune',
        webhook_secret_sealed: 'x',
      });
      for (let i = 0; i < 5; i++) await a.enqueueJob({ serverId: 'prune', trigger: 'manual' });
      const newestFirst = (await b.listJobs('prune')).map((j) => j.id);
      expect(newestFirst).toHaveLength(5);
      const oldest = newestFirst[4]!;
      // Everything finished but the oldest, which is still waiting.
      await a.db
        .updateTable('import_jobs')
        .set({ status: 'Complete' })
        .where('server_id', '=', 'prune')
        .where('id', '!=', oldest)
        .execute();
      const others = (await a.listJobs('pets', 1000)).length;
      expect(await b.pruneJobs('prune', 2)).toBe(2);
      expect((await a.listJobs('prune')).map((j) => j.id)).toEqual([newestFirst[0], newestFirst[1], oldest]);
      expect(await a.pruneJobs('prune', 2)).toBe(0);
      expect((await a.listJobs('pets', 1000)).length).toBe(others);
      // The waiting job would be claimed by the tests below.
      await a.db.deleteFrom('import_jobs').where('server_id', '=', 'prune').execute();
    });

    it('keeps the plan, paid by default', async () => {
      expect(await a.plan()).toBe('paid');
      await a.setPlan('free');
      expect(await b.plan()).toBe('free');
      await a.setPlan('paid');
    });

    it('queues a delivery id once', async () => {
      const first = await a.enqueueJob({ serverId: 'pets', trigger: 'github', deliveryId: 'github:abc' });
      const again = await b.enqueueJob({ serverId: 'pets', trigger: 'github', deliveryId: 'github:abc' });
      expect(again).toEqual({ jobId: first.jobId, duplicate: true });
      const jobs = await a.listJobs('pets');
      expect(jobs.filter((j) => j.delivery_id === 'github:abc')).toHaveLength(1);
      // Drain it so the claim test starts from an empty queue.
      const claimed = await a.claimJob('drain', 60_000);
      expect(claimed?.id).toBe(first.jobId);
      await a.finishJob(first.jobId, 'drain', { status: 'Complete' });
    });

    it('claims jobs queued in the same millisecond first in, first out', async () => {
      const frozen = new ControlStore({ db: a.db, kind: a.kind, now: () => Date.UTC(2026, 10, 23) });
      const queued = [];
      for (let i = 0; i < 8; i++)
        queued.push((await frozen.enqueueJob({ serverId: 'pets', trigger: 'manual' })).jobId);
      const claimed = [];
      for (let i = 0; i < 8; i++) {
        const job = await b.claimJob('fifo', 60_000);
        claimed.push(job?.id);
        await b.finishJob(job!.id, 'fifo', { status: 'Complete' });
      }
      // Not closed: it shares the database of the store under test.
      expect(claimed).toEqual(queued);
    });

    it('two replicas claiming at once never take the same job', async () => {
      const ids = new Set<string>();
      for (let i = 0; i < 20; i++)
        ids.add((await a.enqueueJob({ serverId: 'pets', trigger: 'manual' })).jobId);
      const taken: string[] = [];
      const worker = async (store: ControlStore, owner: string) => {
        for (;;) {
          const job = await store.claimJob(owner, 60_000);
          if (!job) return;
          taken.push(job.id);
          expect(job.lease_owner).toBe(owner);
          expect(await store.finishJob(job.id, owner, { status: 'Complete' })).toBe(true);
        }
      };
      await Promise.all([worker(a, 'a1'), worker(b, 'b1'), worker(a, 'a2'), worker(b, 'b2')]);
      expect(taken).toHaveLength(20);
      expect(new Set(taken)).toEqual(ids);
    });

    it('re-queues a Processing job whose lease expired, and the old worker cannot finish it', async () => {
      const { jobId } = await a.enqueueJob({ serverId: 'pets', trigger: 'manual' });
      const first = await a.claimJob('dead-worker', 400);
      expect(first?.id).toBe(jobId);
      expect(await b.claimJob('other', 60_000)).toBeUndefined();
      skewMs += 450;
      const again = await b.claimJob('survivor', 60_000);
      expect(again?.id).toBe(jobId);
      expect(again?.attempts).toBe(2);
      expect(await a.finishJob(jobId, 'dead-worker', { status: 'Failed', error: 'late' })).toBe(false);
      expect(
        await b.finishJob(jobId, 'survivor', { status: 'Failed', failedStep: 'fetch', error: 'boom' }),
      ).toBe(true);
      const row = await a.getJob(jobId);
      expect(row).toMatchObject({ status: 'Failed', failed_step: 'fetch', error: 'boom' });
    });

    it('releases a job back to the queue: Pending, no lease, no progress, the claim not counted', async () => {
      const { jobId } = await a.enqueueJob({ serverId: 'pets', trigger: 'manual' });
      expect((await a.claimJob('stopping', 60_000))?.id).toBe(jobId);
      await a.saveProgress(jobId, 'stopping', '{"steps":[]}');
      expect(await b.releaseJob(jobId, 'someone-else')).toBe(false);
      expect(await a.releaseJob(jobId, 'stopping')).toBe(true);
      expect(await a.getJob(jobId)).toMatchObject({
        status: 'Pending',
        lease_owner: null,
        lease_until: null,
        progress: null,
        attempts: 0,
      });
      expect(await a.finishJob(jobId, 'stopping', { status: 'Failed', error: 'late' })).toBe(false);
      const again = await b.claimJob('next-start', 60_000);
      expect(again).toMatchObject({ id: jobId, attempts: 1 });
    });

    it('batches last-used times', async () => {
      const deploy = await a.createDeployToken('pets', 'edge');
      a.touchDeployToken(deploy.id);
      expect((await a.getDeployToken(deploy.id))?.last_used_at).toBeNull();
      await a.flushTouches();
      expect((await b.getDeployToken(deploy.id))?.last_used_at).toMatch(/^\d{4}-/);
    });

    it.runIf(name === 'postgresql')('survives PostgreSQL dropping an idle pooled connection', async () => {
      const opened = await openDatabase({ dataDir: '/nonexistent', databaseUrl: cluster!.url });
      const warnings: string[] = [];
      const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
        warnings.push(String(chunk));
        return true;
      });
      try {
        const own = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(opened.db);
        // The connection is idle in the pool now; the server ends it (an admin shutdown, 57P01).
        await sql`select pg_terminate_backend(${own.rows[0]!.pid})`.execute(a.db);
        for (let i = 0; i < 250 && warnings.length === 0; i++) await new Promise((r) => setTimeout(r, 20));
        expect(warnings.join('')).toContain('PostgreSQL closed an idle connection (57P01)');
        const again = await sql<{ one: number }>`select 1 as one`.execute(opened.db);
        expect(again.rows[0]?.one).toBe(1);
      } finally {
        spy.mockRestore();
        await opened.db.destroy();
      }
    });
  });
}
