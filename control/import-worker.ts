/**
 * The background worker: claims one job at a time under a lease (renewed while it runs), runs
 * it and records the outcome. A job whose worker died is claimed again once its lease expires.
 */
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { type AddressPolicy, addressPolicy } from '../generator/sources/address-policy.js';
import type { GitRepository } from './git/git-repository.js';
import { JobCancelledError, type JobProgress, runImportJob } from './import-job.js';
import { DEFAULT_KEEP_JOBS } from './job-retention.js';
import type { SecretBox } from '../core/secret-box.js';
import { openSourceCredential, type SourceCredential, sourceGitAccess } from './source-credential.js';
import type { ControlStore, JobRow, ServerRow } from './store/control-store.js';

export interface ImportWorkerOptions {
  store: ControlStore;
  repository(server: ServerRow): Promise<GitRepository>;
  workRoot: string;
  /** Opens servers' source credentials (without it, sources are read without one). */
  secrets?: SecretBox;
  /** Where the sources' git repositories are cached (default `<workRoot>/../source-cache`). */
  sourceCacheDir?: string;
  /** Which addresses the sources' URLs may lead to (default: public addresses only). */
  policy?: AddressPolicy;
  leaseMs?: number;
  pollMs?: number;
  /** Finished jobs kept per server, newest first (default 200); older ones are deleted. */
  keepJobs?: number;
  now?: () => Date;
  /** Called after a job ends (the snapshot cache forgets the server's head). */
  onFinished?(serverId: string): void;
  log?(event: string, fields: Record<string, unknown>): void;
}

export interface ImportWorker {
  readonly owner: string;
  start(): void;
  /** Look for a job now (after one was queued). */
  wake(): void;
  /** Stops looking for jobs; a job under way is cancelled and put back in the queue (not failed). */
  stop(): Promise<void>;
}

/** What one worker's steps share. */
interface WorkerContext {
  opts: ImportWorkerOptions;
  owner: string;
  leaseMs: number;
  now: () => Date;
  log: (event: string, fields: Record<string, unknown>) => void;
  sourceCacheDir: string;
  policy: AddressPolicy;
  /** Aborted by stop(): the job under way gives up and is released to the queue. */
  signal: AbortSignal;
}

export function createImportWorker(opts: ImportWorkerOptions): ImportWorker {
  const stopping = new AbortController();
  const w: WorkerContext = {
    opts,
    owner: `worker-${randomUUID()}`,
    leaseMs: opts.leaseMs ?? 60_000,
    now: opts.now ?? (() => new Date()),
    log: opts.log ?? (() => undefined),
    sourceCacheDir: opts.sourceCacheDir ?? join(opts.workRoot, '..', 'source-cache'),
    policy: opts.policy ?? addressPolicy(),
    signal: stopping.signal,
  };
  const pollMs = opts.pollMs ?? 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let again = false;

  async function drain(): Promise<void> {
    do {
      again = false;
      while (!stopped) {
        let job: JobRow | undefined;
        try {
          job = await opts.store.claimJob(w.owner, w.leaseMs);
        } catch (error) {
          w.log('claim_failed', { reason: reasonOf(error) });
          break;
        }
        if (!job) break;
        await runJob(w, job).catch((error) =>
          w.log('job_crashed', { jobId: job.id, reason: reasonOf(error) }),
        );
      }
    } while (again && !stopped);
  }

  function kick(): void {
    if (stopped) return;
    if (loop) {
      again = true;
      return;
    }
    loop = drain().finally(() => {
      loop = undefined;
      schedule();
    });
  }

  function schedule(): void {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(kick, pollMs);
    timer.unref();
  }

  return {
    owner: w.owner,
    start() {
      void mkdir(opts.workRoot, { recursive: true, mode: 0o700 }).then(kick);
    },
    wake: kick,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      stopping.abort();
      await loop;
    },
  };
}

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

/** Renews the job's lease every third of it; owned() turns false once a renewal is refused. */
function holdLease({ opts, owner, leaseMs }: WorkerContext, job: JobRow) {
  let owned = true;
  const renew = setInterval(
    () => {
      void opts.store.renewLease(job.id, owner, leaseMs).then((ok) => {
        if (!ok) owned = false;
      });
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  return { owned: () => owned, release: () => clearInterval(renew) };
}

/** Saves the job's progress in order, one write after the other; saved() waits for the last. */
function progressSaver({ opts, owner }: WorkerContext, job: JobRow) {
  let saving = Promise.resolve();
  return {
    onProgress(progress: JobProgress) {
      const text = JSON.stringify(progress);
      saving = saving.then(() => opts.store.saveProgress(job.id, owner, text)).catch(() => undefined);
    },
    saved: () => saving,
  };
}

async function runJob(w: WorkerContext, job: JobRow): Promise<void> {
  const lease = holdLease(w, job);
  const progress = progressSaver(w, job);
  try {
    const server = await w.opts.store.getServer(job.server_id);
    if (!server) {
      await w.opts.store.finishJob(job.id, w.owner, {
        status: 'Failed',
        failedStep: 'fetch',
        error: 'the server is no longer registered',
      });
      return;
    }
    w.log('import_started', {
      jobId: job.id,
      serverId: server.id,
      trigger: job.trigger,
      attempt: job.attempts,
    });
    const credential = await openCredential(w, server);
    if (!credential.ok) {
      await progress.saved();
      await failUnreadableCredential(w, job, server);
      return;
    }
    const outcome = await importServer(w, job, server, credential.value, lease.owned, progress.onProgress);
    await progress.saved();
    if (outcome === 'released') {
      const released = await w.opts.store.releaseJob(job.id, w.owner);
      w.log('import_released', { jobId: job.id, serverId: server.id, released });
      return;
    }
    await recordOutcome(w, job, server, outcome);
    w.opts.onFinished?.(server.id);
    await pruneJobs(w, server);
  } finally {
    lease.release();
  }
}

/** The server's source credential, opened with this control key (none stored: undefined). */
async function openCredential(
  { opts }: WorkerContext,
  server: ServerRow,
): Promise<{ ok: true; value: SourceCredential | undefined } | { ok: false }> {
  try {
    const sealed = await opts.store.sourceCredential(server.id);
    if (sealed !== undefined && opts.secrets)
      return { ok: true, value: openSourceCredential(opts.secrets, sealed) };
    return { ok: true, value: undefined };
  } catch {
    return { ok: false };
  }
}

async function failUnreadableCredential({ opts, owner, log }: WorkerContext, job: JobRow, server: ServerRow) {
  await opts.store.finishJob(job.id, owner, {
    status: 'Failed',
    failedStep: 'import',
    error: `the server's source credential cannot be opened with this control key (was SVC_CONTROL_KEY changed?); set it again with PUT /v1/servers/${server.id}/source-credential`,
  });
  log('import_finished', {
    jobId: job.id,
    serverId: server.id,
    status: 'Failed',
    failedStep: 'import',
  });
}

type JobOutcome = Awaited<ReturnType<typeof runImportJob>>;

/** Runs the import job; 'released' when stop() cancelled it (it goes back to the queue, not failed). */
async function importServer(
  w: WorkerContext,
  job: JobRow,
  server: ServerRow,
  credential: SourceCredential | undefined,
  stillOwned: () => boolean,
  onProgress: (progress: JobProgress) => void,
): Promise<JobOutcome | 'released'> {
  try {
    return await runImportJob({
      sourceAccess: sourceGitAccess(server.id, credential, w.sourceCacheDir, w.policy),
      repo: await w.opts.repository(server),
      branch: server.branch,
      path: server.path,
      trigger: job.trigger,
      workRoot: w.opts.workRoot,
      now: w.now,
      onProgress,
      stillOwned,
      signal: w.signal,
    });
  } catch (error) {
    if (error instanceof JobCancelledError) return 'released';
    return { status: 'Failed', failedStep: 'push', error: reasonOf(error) };
  }
}

async function recordOutcome(
  { opts, owner, log }: WorkerContext,
  job: JobRow,
  server: ServerRow,
  outcome: JobOutcome,
) {
  const finished = await opts.store.finishJob(job.id, owner, {
    status: outcome.status,
    ...(outcome.status === 'Complete' && outcome.commit ? { commitSha: outcome.commit } : {}),
    ...(outcome.status === 'Failed' ? { failedStep: outcome.failedStep, error: outcome.error } : {}),
    ...(outcome.summary ? { summary: outcome.summary } : {}),
    ...(outcome.report ? { report: JSON.stringify(outcome.report) } : {}),
  });
  log('import_finished', {
    jobId: job.id,
    serverId: server.id,
    status: outcome.status,
    ...(outcome.status === 'Complete' && outcome.commit ? { commit: outcome.commit } : {}),
    ...(outcome.status === 'Failed' ? { failedStep: outcome.failedStep } : {}),
    recorded: finished,
  });
}

/** Keeps the newest finished jobs of the server (keepJobs); a failure to prune is logged, not fatal. */
async function pruneJobs({ opts, log }: WorkerContext, server: ServerRow) {
  try {
    const pruned = await opts.store.pruneJobs(server.id, opts.keepJobs ?? DEFAULT_KEEP_JOBS);
    if (pruned > 0) log('jobs_pruned', { serverId: server.id, deleted: pruned });
  } catch (error) {
    log('prune_failed', { serverId: server.id, reason: reasonOf(error) });
  }
}
