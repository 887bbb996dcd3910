/**
 * Every read and write of the control service's state, over Kysely, so the same code runs on the
 * embedded SQLite and on PostgreSQL. Tokens are looked up by their sha256; import jobs are
 * claimed under a lease so that two replicas never run one job at the same time, and a job
 * whose worker died (lease expired) is claimed again.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { SvcError } from '../../core/svc-error.js';
import { DEPLOY_TOKEN_PREFIX, hashToken, newToken, WORKSPACE_TOKEN_PREFIX } from '../tokens.js';
import type { DatabaseKind } from './open-database.js';
import type {
  ControlDatabase,
  DeployTokenTable,
  ImportJobTable,
  JobStatus,
  JobTrigger,
  Plan,
  ServerTable,
  WorkspaceTokenTable,
} from './schema.js';
import { newJobId } from './job-id.js';

export type ServerRow = Selectable<ServerTable>;
export type DeployTokenRow = Selectable<DeployTokenTable>;
export type JobRow = Selectable<ImportJobTable>;
/** A token as listed: everything but its hash. */
export type WorkspaceTokenInfo = Omit<Selectable<WorkspaceTokenTable>, 'token_hash'>;
export type DeployTokenInfo = Omit<DeployTokenRow, 'token_hash'>;

/**
 * PostgreSQL refuses a NUL byte in text ("invalid byte sequence"), which came back as a 500 while
 * SQLite simply found nothing. Ids with one are never stored, so a lookup finds nothing on both,
 * and a value to be stored is refused with USAGE (400).
 */
const hasNul = (value: string | null | undefined) => value?.includes('\u0000') ?? false;
function refuseNul(fields: Record<string, string | null | undefined>): void {
  for (const [field, value] of Object.entries(fields)) {
    if (hasNul(value)) {
      throw new SvcError('USAGE', `${field} must not contain a NUL byte`, { place: { field } });
    }
  }
}

const WORKSPACE_ID = 'default';
/** A self-hosted workspace may export unless someone sets it to free. */
const DEFAULT_PLAN: Plan = 'paid';

export interface ControlStoreOptions {
  db: Kysely<ControlDatabase>;
  kind: DatabaseKind;
  now?: () => number;
  /** How often last-used times are written (they are batched, not written per request). */
  touchFlushMs?: number;
}

export interface FinishJob {
  status: Extract<JobStatus, 'Complete' | 'Failed'>;
  commitSha?: string;
  failedStep?: string;
  error?: string;
  summary?: string;
  report?: string;
}

function isUniqueViolation(error: unknown): boolean {
  const text = `${(error as { code?: string })?.code ?? ''} ${(error as Error)?.message ?? ''}`;
  return /23505|UNIQUE constraint|SQLITE_CONSTRAINT/i.test(text);
}

export class ControlStore {
  readonly db: Kysely<ControlDatabase>;
  readonly kind: DatabaseKind;
  private readonly now: () => number;
  /** Last-use times not yet written, per table and token id. */
  private readonly touched = new Map<
    string,
    { table: 'deploy_tokens' | 'workspace_tokens'; id: string; at: string }
  >();
  private readonly flushTimer: NodeJS.Timeout;

  constructor(opts: ControlStoreOptions) {
    this.db = opts.db;
    this.kind = opts.kind;
    this.now = opts.now ?? Date.now;
    this.flushTimer = setInterval(
      () => void this.flushTouches().catch(() => undefined),
      opts.touchFlushMs ?? 1000,
    );
    this.flushTimer.unref();
  }

  private iso(ms = this.now()): string {
    return new Date(ms).toISOString();
  }

  async close(): Promise<void> {
    clearInterval(this.flushTimer);
    await this.flushTouches().catch(() => undefined);
    await this.db.destroy();
  }

  // Workspace -------------------------------------------------------------------------------

  async plan(): Promise<Plan> {
    const row = await this.db
      .selectFrom('workspace')
      .select('plan')
      .where('id', '=', WORKSPACE_ID)
      .executeTakeFirst();
    return row?.plan ?? DEFAULT_PLAN;
  }

  async setPlan(plan: Plan): Promise<void> {
    await this.db
      .insertInto('workspace')
      .values({ id: WORKSPACE_ID, plan, created_at: this.iso() })
      .onConflict((oc) => oc.column('id').doUpdateSet({ plan }))
      .execute();
  }

  /** A new workspace token, shown once; `expiresAt` (ISO time) makes it stop working then. */
  async createWorkspaceToken(
    name: string,
    opts: { expiresAt?: string } = {},
  ): Promise<{ id: string; token: string; expiresAt: string | null }> {
    refuseNul({ name });
    const token = newToken(WORKSPACE_TOKEN_PREFIX);
    const id = randomUUID();
    const expiresAt = opts.expiresAt ?? null;
    await this.db
      .insertInto('workspace_tokens')
      .values({
        id,
        name,
        token_hash: hashToken(token),
        created_at: this.iso(),
        last_used_at: null,
        expires_at: expiresAt,
        revoked_at: null,
      })
      .execute();
    return { id, token, expiresAt };
  }

  /** The id of a live (not revoked, not expired) workspace token; records the use. */
  async workspaceAuth(token: string): Promise<{ id: string } | undefined> {
    const row = await this.db
      .selectFrom('workspace_tokens')
      .select('id')
      .where('token_hash', '=', hashToken(token))
      .where('revoked_at', 'is', null)
      .where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.iso())]))
      .executeTakeFirst();
    if (row) this.touch('workspace_tokens', row.id);
    return row;
  }

  async workspaceTokenValid(token: string): Promise<boolean> {
    return (await this.workspaceAuth(token)) !== undefined;
  }

  listWorkspaceTokens(): Promise<WorkspaceTokenInfo[]> {
    return this.db
      .selectFrom('workspace_tokens')
      .select(['id', 'name', 'created_at', 'last_used_at', 'expires_at', 'revoked_at'])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /** Revokes a workspace token and ends its sessions; false when there is no token of this id. */
  async revokeWorkspaceToken(id: string): Promise<boolean> {
    if (hasNul(id)) return false;
    const exists = await this.db
      .selectFrom('workspace_tokens')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    if (!exists) return false;
    await this.db
      .updateTable('workspace_tokens')
      .set({ revoked_at: this.iso() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .execute();
    await this.db.deleteFrom('sessions').where('token_id', '=', id).execute();
    return true;
  }

  // Status-page sessions ----------------------------------------------------------------------

  /** Opens a session for a workspace token; the id is returned once and stored as its sha256. */
  async createSession(tokenId: string, ttlMs: number): Promise<{ id: string; expiresAt: string }> {
    const id = randomBytes(32).toString('base64url');
    const expiresAt = this.iso(this.now() + ttlMs);
    // Sessions past their time are deleted as new ones are opened.
    await this.db.deleteFrom('sessions').where('expires_at', '<=', this.iso()).execute();
    await this.db
      .insertInto('sessions')
      .values({ id_hash: hashToken(id), token_id: tokenId, created_at: this.iso(), expires_at: expiresAt })
      .execute();
    return { id, expiresAt };
  }

  /** A live session (not expired, its token neither revoked nor expired); records the token's use. */
  async sessionAuth(id: string): Promise<{ tokenId: string; expiresAt: string } | undefined> {
    const now = this.iso();
    const row = await this.db
      .selectFrom('sessions as s')
      .innerJoin('workspace_tokens as t', 't.id', 's.token_id')
      .select(['s.token_id as tokenId', 's.expires_at as expiresAt'])
      .where('s.id_hash', '=', hashToken(id))
      .where('s.expires_at', '>', now)
      .where('t.revoked_at', 'is', null)
      .where((eb) => eb.or([eb('t.expires_at', 'is', null), eb('t.expires_at', '>', now)]))
      .executeTakeFirst();
    if (row) this.touch('workspace_tokens', row.tokenId);
    return row;
  }

  async deleteSession(id: string): Promise<void> {
    await this.db.deleteFrom('sessions').where('id_hash', '=', hashToken(id)).execute();
  }

  // Servers ---------------------------------------------------------------------------------

  async addServer(row: Omit<ServerRow, 'created_at'>): Promise<void> {
    refuseNul({ 'server.id': row.id, repository: row.repository, branch: row.branch, path: row.path });
    try {
      await this.db
        .insertInto('servers')
        .values({ ...row, created_at: this.iso() })
        .execute();
    } catch (error) {
      if (isUniqueViolation(error)) {
        throw new SvcError('USAGE', `a server with id "${row.id}" is already registered`, {
          place: { field: 'server.id' },
        });
      }
      throw error;
    }
  }

  listServers(): Promise<ServerRow[]> {
    return this.db.selectFrom('servers').selectAll().orderBy('id').execute();
  }

  async getServer(id: string): Promise<ServerRow | undefined> {
    if (hasNul(id)) return undefined;
    return this.db.selectFrom('servers').selectAll().where('id', '=', id).executeTakeFirst();
  }

  // Source credentials ----------------------------------------------------------------------

  /** Sets (or replaces) the sealed credential a server's source is read with. */
  async setSourceCredential(serverId: string, sealed: string): Promise<string> {
    const updatedAt = this.iso();
    await this.db
      .insertInto('source_credentials')
      .values({ server_id: serverId, credential_sealed: sealed, updated_at: updatedAt })
      .onConflict((oc) =>
        oc.column('server_id').doUpdateSet({ credential_sealed: sealed, updated_at: updatedAt }),
      )
      .execute();
    return updatedAt;
  }

  /** The sealed credential of a server's source, if one was set. */
  async sourceCredential(serverId: string): Promise<string | undefined> {
    const row = await this.db
      .selectFrom('source_credentials')
      .select('credential_sealed')
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return row?.credential_sealed;
  }

  /** False when the server had none. */
  async deleteSourceCredential(serverId: string): Promise<boolean> {
    const result = await this.db
      .deleteFrom('source_credentials')
      .where('server_id', '=', serverId)
      .executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  // Deploy tokens ---------------------------------------------------------------------------

  async createDeployToken(serverId: string, name: string): Promise<{ id: string; token: string }> {
    refuseNul({ serverId, name });
    const token = newToken(DEPLOY_TOKEN_PREFIX);
    const id = randomUUID();
    await this.db
      .insertInto('deploy_tokens')
      .values({
        id,
        server_id: serverId,
        name,
        token_hash: hashToken(token),
        created_at: this.iso(),
        revoked_at: null,
        last_used_at: null,
      })
      .execute();
    return { id, token };
  }

  /** True when a token with this id existed and was not already revoked. */
  async revokeDeployToken(id: string): Promise<boolean> {
    if (hasNul(id)) return false;
    const result = await this.db
      .updateTable('deploy_tokens')
      .set({ revoked_at: this.iso() })
      .where('id', '=', id)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) > 0) return true;
    const exists = await this.db
      .selectFrom('deploy_tokens')
      .select('id')
      .where('id', '=', id)
      .executeTakeFirst();
    return exists !== undefined;
  }

  findDeployToken(token: string): Promise<DeployTokenRow | undefined> {
    return this.db
      .selectFrom('deploy_tokens')
      .selectAll()
      .where('token_hash', '=', hashToken(token))
      .executeTakeFirst();
  }

  /**
   * Everything a snapshot poll needs, in one query (polls are the hot path): the token, the
   * server it belongs to and the workspace plan.
   */
  async snapshotAccess(
    token: string,
  ): Promise<{ token: DeployTokenRow; server: ServerRow; plan: Plan } | undefined> {
    const row = await this.db
      .selectFrom('deploy_tokens as t')
      .innerJoin('servers as s', 's.id', 't.server_id')
      .leftJoin('workspace as w', (join) => join.on('w.id', '=', WORKSPACE_ID))
      .select([
        't.id as t_id',
        't.server_id as t_server_id',
        't.name as t_name',
        't.token_hash as t_token_hash',
        't.created_at as t_created_at',
        't.revoked_at as t_revoked_at',
        't.last_used_at as t_last_used_at',
        's.id as s_id',
        's.repository as s_repository',
        's.branch as s_branch',
        's.path as s_path',
        's.webhook_secret_sealed as s_webhook_secret_sealed',
        's.created_at as s_created_at',
        'w.plan as plan',
      ])
      .where('t.token_hash', '=', hashToken(token))
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      token: {
        id: row.t_id,
        server_id: row.t_server_id,
        name: row.t_name,
        token_hash: row.t_token_hash,
        created_at: row.t_created_at,
        revoked_at: row.t_revoked_at,
        last_used_at: row.t_last_used_at,
      },
      server: {
        id: row.s_id,
        repository: row.s_repository,
        branch: row.s_branch,
        path: row.s_path,
        webhook_secret_sealed: row.s_webhook_secret_sealed,
        created_at: row.s_created_at,
      },
      plan: row.plan ?? DEFAULT_PLAN,
    };
  }

  async getDeployToken(id: string): Promise<DeployTokenRow | undefined> {
    if (hasNul(id)) return undefined;
    return this.db.selectFrom('deploy_tokens').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /** The deploy tokens of one server (or of all), oldest first, without their hashes. */
  listDeployTokens(serverId?: string): Promise<DeployTokenInfo[]> {
    let query = this.db
      .selectFrom('deploy_tokens')
      .select(['id', 'server_id', 'name', 'created_at', 'revoked_at', 'last_used_at'])
      .orderBy('created_at')
      .orderBy('id');
    if (serverId !== undefined) query = query.where('server_id', '=', serverId);
    return query.execute();
  }

  /** Records a use; written with the next flush (polls are frequent, the time is informative). */
  touchDeployToken(id: string): void {
    this.touch('deploy_tokens', id);
  }

  private touch(table: 'deploy_tokens' | 'workspace_tokens', id: string): void {
    this.touched.set(`${table}:${id}`, { table, id, at: this.iso() });
  }

  async flushTouches(): Promise<void> {
    if (this.touched.size === 0) return;
    const batch = [...this.touched.values()];
    this.touched.clear();
    for (const { table, id, at } of batch) {
      await this.db.updateTable(table).set({ last_used_at: at }).where('id', '=', id).execute();
    }
  }

  // Import jobs -----------------------------------------------------------------------------

  /** Queues a job; a delivery id seen before queues nothing and returns the earlier job. */
  async enqueueJob(input: {
    serverId: string;
    trigger: JobTrigger;
    deliveryId?: string;
  }): Promise<{ jobId: string; duplicate: boolean }> {
    refuseNul({ serverId: input.serverId, deliveryId: input.deliveryId });
    const id = newJobId(this.now());
    const inserted = await this.db
      .insertInto('import_jobs')
      .values({
        id,
        server_id: input.serverId,
        status: 'Pending',
        trigger: input.trigger,
        delivery_id: input.deliveryId ?? null,
        created_at: this.iso(),
        started_at: null,
        finished_at: null,
        commit_sha: null,
        failed_step: null,
        error: null,
        summary: null,
        progress: null,
        report: null,
        lease_owner: null,
        lease_until: null,
      })
      .onConflict((oc) => oc.column('delivery_id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (inserted) return { jobId: inserted.id, duplicate: false };
    const earlier = await this.db
      .selectFrom('import_jobs')
      .select('id')
      .where('delivery_id', '=', input.deliveryId ?? '')
      .executeTakeFirstOrThrow();
    return { jobId: earlier.id, duplicate: true };
  }

  async listJobs(serverId: string, limit = 50): Promise<JobRow[]> {
    if (hasNul(serverId)) return [];
    return this.db
      .selectFrom('import_jobs')
      .selectAll()
      .where('server_id', '=', serverId)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .limit(limit)
      .execute();
  }

  async getJob(id: string): Promise<JobRow | undefined> {
    if (hasNul(id)) return undefined;
    return this.db.selectFrom('import_jobs').selectAll().where('id', '=', id).executeTakeFirst();
  }

  /**
   * Takes the oldest Pending job (or a Processing one whose lease ran out) for `owner`, in one
   * statement: PostgreSQL locks the chosen row with FOR UPDATE SKIP LOCKED so concurrent
   * replicas pick different jobs; SQLite runs the statement under its single writer lock.
   */
  async claimJob(owner: string, leaseMs: number): Promise<JobRow | undefined> {
    const now = this.iso();
    let pick = this.db
      .selectFrom('import_jobs')
      .select('id')
      .where((eb) =>
        eb.or([
          eb('status', '=', 'Pending'),
          eb.and([eb('status', '=', 'Processing'), eb('lease_until', '<', now)]),
        ]),
      )
      .orderBy('created_at')
      .orderBy('id')
      .limit(1);
    if (this.kind === 'postgres') pick = pick.forUpdate().skipLocked();
    return this.db
      .updateTable('import_jobs')
      .set((eb) => ({
        status: 'Processing',
        lease_owner: owner,
        lease_until: this.iso(this.now() + leaseMs),
        started_at: eb.fn.coalesce('started_at', eb.val(now)),
        attempts: eb('attempts', '+', 1),
      }))
      .where('id', '=', pick)
      .returningAll()
      .executeTakeFirst();
  }

  /** Extends the lease; false when another worker has taken the job over. */
  async renewLease(jobId: string, owner: string, leaseMs: number): Promise<boolean> {
    const result = await this.db
      .updateTable('import_jobs')
      .set({ lease_until: this.iso(this.now() + leaseMs) })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'Processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async saveProgress(jobId: string, owner: string, progress: string): Promise<void> {
    await this.db
      .updateTable('import_jobs')
      .set({ progress })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .execute();
  }

  /**
   * Deletes the server's finished jobs other than its newest `keep` jobs; jobs still Pending or
   * Processing are never deleted. Returns how many went.
   */
  async pruneJobs(serverId: string, keep: number): Promise<number> {
    const result = await this.db
      .deleteFrom('import_jobs')
      .where('server_id', '=', serverId)
      .where('status', 'in', ['Complete', 'Failed'])
      .where('id', 'not in', (eb) =>
        eb
          .selectFrom('import_jobs')
          .select('id')
          .where('server_id', '=', serverId)
          .orderBy('created_at', 'desc')
          .orderBy('id', 'desc')
          .limit(keep),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }

  /**
   * Puts a job this worker holds back in the queue (its worker is stopping): Pending again, no
   * lease, no progress, and the claim not counted as an attempt. False when the lease was lost.
   */
  async releaseJob(jobId: string, owner: string): Promise<boolean> {
    const result = await this.db
      .updateTable('import_jobs')
      .set((eb) => ({
        status: 'Pending',
        lease_owner: null,
        lease_until: null,
        progress: null,
        attempts: eb('attempts', '-', 1),
      }))
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'Processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Ends a job; false when the lease was lost (another worker owns the outcome). */
  async finishJob(jobId: string, owner: string, outcome: FinishJob): Promise<boolean> {
    const result = await this.db
      .updateTable('import_jobs')
      .set({
        status: outcome.status,
        finished_at: this.iso(),
        commit_sha: outcome.commitSha ?? null,
        failed_step: outcome.failedStep ?? null,
        error: outcome.error ?? null,
        summary: outcome.summary ?? null,
        report: outcome.report ?? null,
        lease_owner: null,
        lease_until: null,
      })
      .where('id', '=', jobId)
      .where('lease_owner', '=', owner)
      .where('status', '=', 'Processing')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
