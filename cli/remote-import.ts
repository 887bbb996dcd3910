/**
 * `svc import --remote <serverId>`: asks the control service for a re-import
 * (`POST /v1/servers/{id}/imports` → jobId) and follows the job
 * (`GET /v1/servers/{id}/imports/{jobId}`) until it is Complete or Failed, printing each status
 * it goes through. The job runs on the service, which commits the result to the tracked branch.
 */
import { SvcError } from '../core/svc-error.js';
import { renderReportText } from '../generator/report/index.js';
import type { ImportReport } from '../schemas/types.js';
import type { CliIo } from './command.js';
import { type ControlClient, isTransient } from './control-client.js';
import { EXIT } from './exit-codes.js';

export interface RemoteJob {
  jobId: string;
  status: 'Pending' | 'Processing' | 'Complete' | 'Failed';
  summary?: string;
  commit?: string;
  failedStep?: string;
  error?: string;
  report?: ImportReport;
}

export interface RemoteImportOptions {
  serverId: string;
  json: boolean;
  /** Between two looks at the job. */
  pollMs?: number;
  /** How long the service may stay unreachable while the job is followed (default 60 s). */
  retryForMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const FINAL = new Set(['Complete', 'Failed']);

export async function runRemoteImport(
  client: ControlClient,
  io: CliIo,
  opts: RemoteImportOptions,
): Promise<number> {
  const sleep = opts.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pollMs = opts.pollMs ?? 500;
  const server = `/v1/servers/${encodeURIComponent(opts.serverId)}`;
  const queued = (await client.request('POST', `${server}/imports`)) as { jobId?: unknown };
  if (typeof queued.jobId !== 'string') {
    throw new SvcError('CONTROL_REFUSED', 'the control service queued the import but gave no jobId', {
      place: { url: `${client.url}${server}/imports` },
    });
  }
  const jobPath = `${server}/imports/${encodeURIComponent(queued.jobId)}`;
  // With --json, stdout holds the final job alone; the progress goes to stderr.
  const progress = opts.json ? io.stderr : io.stdout;
  progress(`Import job ${queued.jobId} for ${opts.serverId} on ${client.url}\n`);
  // A queued job is Pending by definition; a worker may claim it before the first look.
  progress('  Pending\n');
  let last = 'Pending';
  let job: RemoteJob;
  let failingSince: number | undefined;
  for (;;) {
    try {
      job = (await client.request('GET', jobPath)) as RemoteJob;
      failingSince = undefined;
    } catch (error) {
      // The job is in the service's database and survives its restart: keep following it for a
      // while. Only looks are repeated; the POST that queued the job never is.
      if (!isTransient(error)) throw error;
      const now = Date.now();
      if (failingSince === undefined) {
        failingSince = now;
        progress('  (the control service is not answering; still following the job)\n');
      } else if (now - failingSince > (opts.retryForMs ?? 60_000)) {
        throw error;
      }
      await sleep(pollMs);
      continue;
    }
    if (job.status !== last) {
      last = job.status;
      progress(`  ${describeStatus(job)}\n`);
    }
    if (FINAL.has(job.status)) break;
    await sleep(pollMs);
  }
  if (opts.json) io.stdout(`${JSON.stringify(job, null, 2)}\n`);
  else if (job.status === 'Complete' && job.report) io.stdout(renderReportText(job.report));
  if (job.status === 'Complete') return EXIT.ok;
  io.stderr(
    `error: the import job failed at step ${job.failedStep ?? '(unknown)'}: ${job.error ?? 'no error recorded'}\n` +
      `  see ${client.url}/servers/${encodeURIComponent(opts.serverId)}/imports\n`,
  );
  return EXIT.input;
}

function describeStatus(job: RemoteJob): string {
  if (job.status === 'Complete') {
    const commit = job.commit ? ` (committed ${job.commit.slice(0, 12)})` : ' (nothing to commit)';
    return `Complete${commit}`;
  }
  if (job.status === 'Failed') return `Failed at ${job.failedStep ?? '(unknown step)'}: ${job.error ?? ''}`;
  return job.status;
}
