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

export function createImportWorker(opts: ImportWorkerOptions): ImportWorker {
  const owner = `worker-${randomUUID()}`;
  const leaseMs = opts.leaseMs ?? 60_000;
  const pollMs = opts.pollMs ?? 1000;
  const now = opts.now ?? (() => new Date());
  const log = opts.log ?? (() => undefined);
  const sourceCacheDir = opts.sourceCacheDir ?? join(opts.workRoot, '..', 'source-cache');
  const policy = opts.policy ?? addressPolicy();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let loop: Promise<void> | undefined;
  let again = false;
  /** Aborted by stop(): the job under way gives up and is released to the queue. */
  const stopping = new AbortController();

  async function runJob(job: JobRow): Promise<void> {
    let owned = true;
    const renew = setInterval(
      () => {
        void opts.store.renewLease(job.id, owner, leaseMs).then((ok) => {
          if (!ok) owned = false;
        });
      },
      Math.max(50, Math.floor(leaseMs / 3)),
    );
    let saving = Promise.resolve();
    const onProgress = (progress: JobProgress) => {
      const text = JSON.stringify(progress);
      saving = saving.then(() => opts.store.saveProgress(job.id, owner, text)).catch(() => undefined);
    };
    try {
      const server = await opts.store.getServer(job.server_id);
      if (!server) {
        await opts.store.finishJob(job.id, owner, {
          status: 'Failed',
          failedStep: 'fetch',
          error: 'the server is no longer registered',
        });
        return;
      }
      log('import_started', {
        jobId: job.id,
        serverId: server.id,
        trigger: job.trigger,
        attempt: job.attempts,
      });
      let outcome: Awaited<ReturnType<typeof runImportJob>>;
      let credential: SourceCredential | undefined;
      try {
        const sealed = await opts.store.sourceCredential(server.id);
        if (sealed !== undefined && opts.secrets) credential = openSourceCredential(opts.secrets, sealed);
      } catch {
        await saving;
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
        return;
      }
      try {
        outcome = await runImportJob({
          sourceAccess: sourceGitAccess(server.id, credential, sourceCacheDir, policy),
          repo: await opts.repository(server),
          branch: server.branch,
          path: server.path,
          trigger: job.trigger,
          workRoot: opts.workRoot,
          now,
          onProgress,
          stillOwned: () => owned,
          signal: stopping.signal,
        });
      } catch (error) {
        if (error instanceof JobCancelledError) {
          await saving;
          const released = await opts.store.releaseJob(job.id, owner);
          log('import_released', { jobId: job.id, serverId: server.id, released });
          return;
        }
        outcome = {
          status: 'Failed',
          failedStep: 'push',
          error: error instanceof Error ? error.message : String(error),
        };
      }
      await saving;
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
      opts.onFinished?.(server.id);
      try {
        const pruned = await opts.store.pruneJobs(server.id, opts.keepJobs ?? DEFAULT_KEEP_JOBS);
        if (pruned > 0) log('jobs_pruned', { serverId: server.id, deleted: pruned });
      } catch (error) {
        log('prune_failed', {
          serverId: server.id,
          reason: error instanceof Error ? error.message : String(error),
        });
      }
    } finally {
      clearInterval(renew);
    }
  }

  async function drain(): Promise<void> {
    do {
      again = false;
      while (!stopped) {
        let job: JobRow | undefined;
        try {
          job = await opts.store.claimJob(owner, leaseMs);
        } catch (error) {
          log('claim_failed', { reason: error instanceof Error ? error.message : String(error) });
          break;
        }
        if (!job) break;
        await runJob(job).catch((error) =>
          log('job_crashed', {
            jobId: job.id,
            reason: error instanceof Error ? error.message : String(error),
          }),
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
    owner,
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
