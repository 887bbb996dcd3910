/**
 * `svc import --remote <serverId>`: asks the control service for a re-import
 * (`POST /v1/servers/{id}/imports` → jobId) and follows the job
 * (`GET /v1/servers/{id}/imports/{jobId}`) until it is Complete or Failed, printing each status
 * it goes through, then the import's checklist and report as `svc import` prints them. The job
 * runs on the service, which commits the result to the tracked branch.
 */
import { SvcError } from '../core/svc-error.js';
import type { ChecklistRow } from '../generator/import/index.js';
import { renderReportText } from '../generator/report/index.js';
import type { ImportReport } from '../schemas/types.js';
import type { CliIo } from '../core/command.js';
import { type ControlClient, controlClientFrom, isTransient } from './control-client.js';
import { EXIT } from '../core/exit-codes.js';
import { formatChecklist } from './print-checklist.js';

export interface RemoteJob {
  jobId: string;
  status: 'Pending' | 'Processing' | 'Complete' | 'Failed';
  summary?: string;
  commit?: string;
  failedStep?: string;
  error?: string;
  progress?: { checklist?: ChecklistRow[] };
  report?: ImportReport;
}

export interface RemoteImportOptions {
  serverId: string;
  json: boolean;
  /** Give up following (the job goes on) after this long (default 30 min). */
  timeoutMs?: number;
  /** Between two looks at the job. */
  pollMs?: number;
  /** How long the service may stay unreachable while the job is followed (default 60 s). */
  retryForMs?: number;
  sleep?: (ms: number) => Promise<void>;
}

const FINAL = new Set(['Complete', 'Failed']);

export interface RemoteImportArgs {
  remote: string;
  control?: string;
  timeout?: string;
  json: boolean;
  /** A folder or a source was given too: the service imports its own folder. */
  local: boolean;
}

/** `svc import --remote …` from its parsed flags. */
export async function importRemote(args: RemoteImportArgs, io: CliIo): Promise<number> {
  if (args.local) {
    throw new SvcError(
      'USAGE',
      'svc import --remote <serverId>: the service imports its own folder; give no folder or source',
    );
  }
  const timeout = args.timeout ?? '1800';
  if (!/^\d+$/.test(timeout) || Number(timeout) === 0)
    throw new SvcError('USAGE', `svc import: --timeout is a number of seconds, not "${timeout}"`);
  const client = controlClientFrom('import', args.control, io);
  return runRemoteImport(client, io, {
    serverId: args.remote,
    json: args.json,
    timeoutMs: Number(timeout) * 1000,
  });
}

export async function runRemoteImport(
  client: ControlClient,
  io: CliIo,
  opts: RemoteImportOptions,
): Promise<number> {
  const server = `/v1/servers/${encodeURIComponent(opts.serverId)}`;
  const queued = (await client.request('POST', `${server}/imports`)) as { jobId?: unknown };
  if (typeof queued.jobId !== 'string') {
    throw new SvcError('CONTROL_REFUSED', 'the control service queued the import but gave no jobId', {
      place: { url: `${client.url}${server}/imports` },
    });
  }
  // With --json, stdout holds the final job alone; the progress goes to stderr.
  const progress = opts.json ? io.stderr : io.stdout;
  progress(`Import job ${queued.jobId} for ${opts.serverId} on ${client.url}\n`);
  const statusPage = `${client.url}/servers/${encodeURIComponent(opts.serverId)}/imports`;
  const job = await followJob(client, `${server}/imports/${encodeURIComponent(queued.jobId)}`, {
    ...opts,
    progress,
    statusPage,
  });
  if (opts.json) {
    io.stdout(`${JSON.stringify(job, null, 2)}\n`);
  } else {
    const rows = job.progress?.checklist ?? [];
    if (rows.length > 0) io.stdout(formatChecklist(rows));
    if (job.status === 'Complete' && job.report) io.stdout(renderReportText(job.report));
  }
  if (job.status === 'Complete') return EXIT.ok;
  io.stderr(
    `error: the import job failed at step ${job.failedStep ?? '(unknown)'}: ${job.error ?? 'no error recorded'}\n` +
      `  see ${statusPage}\n`,
  );
  return EXIT.input;
}

/** Looks at the job until it is Complete or Failed, printing each new status. */
async function followJob(
  client: ControlClient,
  jobPath: string,
  opts: RemoteImportOptions & { progress: (text: string) => void; statusPage: string },
): Promise<RemoteJob> {
  const sleep = opts.sleep ?? ((ms) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const pollMs = opts.pollMs ?? 500;
  const timeoutMs = opts.timeoutMs ?? 30 * 60_000;
  const started = Date.now();
  // A queued job is Pending by definition; a worker may claim it before the first look.
  opts.progress('  Pending\n');
  let last = 'Pending';
  let failingSince: number | undefined;
  for (;;) {
    let job: RemoteJob;
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
        opts.progress('  (the control service is not answering; still following the job)\n');
      } else if (now - failingSince > (opts.retryForMs ?? 60_000)) {
        throw error;
      }
      await sleep(pollMs);
      continue;
    }
    if (job.status !== last) {
      last = job.status;
      opts.progress(`  ${describeStatus(job)}\n`);
    }
    if (FINAL.has(job.status)) return job;
    if (Date.now() - started >= timeoutMs) {
      throw new SvcError(
        'CONTROL_TIMEOUT',
        `the import job is still ${job.status} after ${Math.round(timeoutMs / 1000)} s; it goes on on the service`,
        { place: { url: opts.statusPage } },
      );
    }
    await sleep(pollMs);
  }
}

function describeStatus(job: RemoteJob): string {
  if (job.status === 'Complete') {
    const commit = job.commit ? ` (committed ${job.commit.slice(0, 12)})` : ' (nothing to commit)';
    return `Complete${commit}`;
  }
  // The error itself is printed once, on stderr, when the command ends.
  if (job.status === 'Failed') return `Failed at ${job.failedStep ?? '(unknown step)'}`;
  return job.status;
}
