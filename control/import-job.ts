/**
 * One import job, start to end: fetch the branch head, re-import the folder in a scratch copy
 * of the tree with the generator's one orchestrator (importFolder), commit a changed folder on
 * top of the head with the commit shape the Action's merge mode uses too (summary lines and the
 * `Svc-Import: true` trailer), and move the branch (push). The steps and the import's own
 * checklist are reported as they go, for the status page.
 *
 * Loop guard, as in the Action: a job started by a git host's merge event (GitHub, GitLab) whose
 * head commit is svc's own import commit does nothing. A manual job or a signed generic delivery
 * asks for an import ("the API changed") and always runs one.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { isSvcError } from '../core/svc-error.js';
import {
  DEFAULT_COMMIT_MESSAGE,
  importCommitMessage,
  isOwnCommit,
} from '../generator/import/import-commit.js';
import { type ChecklistRow, importFolder } from '../generator/import/index.js';
import type { GitAccess } from '../generator/import/source-reader.js';
import { BranchMovedError, type GitRepository } from './git/git-repository.js';
import { cancellable, JobCancelledError, jobRepository } from './git/job-repository.js';
import type { JobTrigger } from './store/schema.js';

export const JOB_STEPS = ['fetch', 'import', 'commit', 'push'] as const;
export type JobStep = (typeof JOB_STEPS)[number];
export type StepStatus = 'pending' | 'processing' | 'complete' | 'failed' | 'skipped';

export interface JobProgress {
  steps: { step: JobStep; status: StepStatus; detail?: string }[];
  checklist: ChecklistRow[];
}

export type JobOutcome =
  | { status: 'Complete'; summary: string; commit?: string; report?: unknown }
  | { status: 'Failed'; failedStep: string; error: string; summary?: string; report?: unknown };

export interface RunJobInput {
  repo: GitRepository;
  branch: string;
  path: string;
  trigger: JobTrigger;
  workRoot: string;
  /** How the import reads a git or raw-URL source (the server's source credential, if set). */
  sourceAccess?: GitAccess;
  now: () => Date;
  onProgress(progress: JobProgress): void;
  /** False once the job's lease was lost: the result must then not be published. */
  stillOwned(): boolean;
  /**
   * Aborted when the service stops: the job gives up between steps (or while one waits) with a
   * JobCancelledError, and goes back to the queue. A push under way is finished first.
   */
  signal?: AbortSignal;
}

export { JobCancelledError };

export const COMMIT_AUTHOR = { name: 'svc control', email: 'svc-control@users.noreply.invalid' };
const ATTEMPTS = 3;

function describe(error: unknown): string {
  if (isSvcError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

export async function runImportJob(given: RunJobInput): Promise<JobOutcome> {
  // Git failures in svc's words; a stop cancels what is under way (git/job-repository.ts).
  const input = { ...given, repo: jobRepository(given.repo, given.signal) };
  for (let attempt = 1; ; attempt++) {
    try {
      const outcome = await attemptJob(input);
      // Whatever a stop made fail goes back to the queue; a job that got through is recorded.
      if (outcome.status === 'Failed' && input.signal?.aborted) throw new JobCancelledError();
      return outcome;
    } catch (error) {
      if (input.signal?.aborted) throw new JobCancelledError();
      // Someone pushed while we imported: start over from the new head, like the Action's rebase.
      if (error instanceof BranchMovedError && attempt < ATTEMPTS) continue;
      throw error;
    }
  }
}

async function attemptJob(input: RunJobInput): Promise<JobOutcome> {
  const progress: JobProgress = {
    steps: JOB_STEPS.map((step) => ({ step, status: 'pending' })),
    checklist: [],
  };
  const set = (step: JobStep, status: StepStatus, detail?: string) => {
    const row = progress.steps.find((s) => s.step === step)!;
    row.status = status;
    if (detail !== undefined) row.detail = detail;
    input.onProgress(structuredClone(progress));
  };
  const failed = (step: JobStep, error: string, extra: Partial<JobOutcome> = {}): JobOutcome => {
    set(step, 'failed', error);
    return { status: 'Failed', failedStep: step, error, ...extra } as JobOutcome;
  };
  const skipRest = (from: JobStep) => {
    for (const s of progress.steps.slice(JOB_STEPS.indexOf(from)))
      if (s.status === 'pending') s.status = 'skipped';
    input.onProgress(structuredClone(progress));
  };

  set('fetch', 'processing');
  let base: string;
  try {
    base = await input.repo.head(input.branch);
    if (
      (input.trigger === 'github' || input.trigger === 'gitlab') &&
      isOwnCommit(await input.repo.readCommitMessage(base))
    ) {
      set('fetch', 'complete', base);
      skipRest('import');
      return { status: 'Complete', summary: 'Skipped: the head commit is svc’s own re-import commit.' };
    }
  } catch (error) {
    return failed('fetch', describe(error));
  }
  set('fetch', 'complete', base);

  const scratch = await mkdtemp(join(input.workRoot, 'job-'));
  // Errors name files by their place in the repository, not in the scratch copy.
  const inRepo = (text: string) => text.split(`${scratch}/`).join('').split(scratch).join('.');
  const failedIn = (step: JobStep, error: string, extra: Partial<JobOutcome> = {}) =>
    failed(step, inRepo(error), extra);
  try {
    set('import', 'processing');
    try {
      // Only the folder and the sources its config.yaml names (git/job-tree.ts).
      await input.repo.materializeFolder(base, input.path, scratch, input.signal);
    } catch (error) {
      return failedIn('import', describe(error));
    }
    const dir = join(scratch, ...input.path.split('/').filter(Boolean));
    const result = await cancellable(
      importFolder({
        dir,
        // config.yaml is whoever pushed to the branch: its paths stay inside the repository's tree.
        confineTo: scratch,
        now: input.now,
        ...(input.sourceAccess ? { git: input.sourceAccess } : {}),
        onProgress: (rows) => {
          progress.checklist = rows.map((r) => (r.error ? { ...r, error: inRepo(r.error) } : r));
          input.onProgress(structuredClone(progress));
        },
      }),
      input.signal,
    );
    progress.checklist = result.checklist.map((r) => (r.error ? { ...r, error: inRepo(r.error) } : r));
    if (result.status === 'failed') {
      const row = result.checklist.find((r) => r.status === 'failed');
      return failedIn('import', result.error ? describe(result.error) : result.report.summary, {
        failedStep: `import:${row?.kind ?? 'tools'}`,
        summary: inRepo(result.report.summary),
        report: result.report,
      });
    }
    set('import', 'complete', result.report.summary);
    if (!result.changed) {
      skipRest('commit');
      return { status: 'Complete', summary: result.report.summary, report: result.report };
    }

    set('commit', 'processing');
    const message = importCommitMessage(DEFAULT_COMMIT_MESSAGE, [
      { folder: input.path, summary: result.report.summary },
    ]);
    let commit: string | undefined;
    try {
      commit = await input.repo.commitFolder({
        base,
        path: input.path,
        folderDir: dir,
        message,
        author: COMMIT_AUTHOR,
        now: input.now(),
      });
    } catch (error) {
      return failedIn('commit', describe(error));
    }
    if (!commit) {
      set('commit', 'skipped', 'the tree did not change');
      skipRest('push');
      return { status: 'Complete', summary: result.report.summary, report: result.report };
    }
    set('commit', 'complete', commit);

    set('push', 'processing');
    if (!input.stillOwned()) return failed('push', 'the job’s lease was lost; another worker took it over');
    try {
      await input.repo.publish(input.branch, base, commit);
    } catch (error) {
      if (error instanceof BranchMovedError) throw error;
      return failed('push', describe(error));
    }
    set('push', 'complete', input.branch);
    return { status: 'Complete', summary: result.report.summary, commit, report: result.report };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
