/**
 * A repository as one import job sees it: every git call says what failed in svc's words (the
 * step, the repository, what it was doing; git-failure.ts), and every call but the push gives up
 * at once when the job is cancelled (the service is stopping), so a stopping service does not
 * wait for a fetch or a large checkout to end. A push that has started is let finish: the
 * branch either moved or did not, and the job's outcome says which.
 */
import { BranchMovedError, type GitRepository } from './git-repository.js';
import { gitStepError } from './git-failure.js';

/** The job was stopped before it finished; it goes back to the queue, it did not fail. */
export class JobCancelledError extends Error {
  override readonly name = 'JobCancelledError';
  constructor() {
    super('the import job was stopped before it finished (the service is shutting down)');
  }
}

/** `promise`, or a JobCancelledError as soon as `signal` aborts (the promise runs on, unobserved). */
export function cancellable<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) {
    promise.catch(() => undefined);
    return Promise.reject(new JobCancelledError());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      promise.catch(() => undefined);
      reject(new JobCancelledError());
    };
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

export function jobRepository(repo: GitRepository, signal?: AbortSignal): GitRepository {
  const run = async <T>(
    step: string,
    doing: string,
    call: () => Promise<T>,
    stoppable = true,
  ): Promise<T> => {
    if (stoppable && signal?.aborted) throw new JobCancelledError();
    try {
      return stoppable ? await cancellable(call(), signal) : await call();
    } catch (error) {
      if (error instanceof JobCancelledError || error instanceof BranchMovedError) throw error;
      throw gitStepError(error, { repository: repo.location, step, doing });
    }
  };
  const short = (commit: string) => commit.slice(0, 7);
  return {
    location: repo.location,
    remote: repo.remote,
    head: (branch) => run('fetch', `fetching the branch ${branch}`, () => repo.head(branch)),
    readCommitMessage: (commit) =>
      run('fetch', `reading the commit ${short(commit)}`, () => repo.readCommitMessage(commit)),
    readFolder: (commit, path) =>
      run('import', `reading the folder ${path} at ${short(commit)}`, () => repo.readFolder(commit, path)),
    materialize: (commit, dir) =>
      run('import', `checking out ${short(commit)}`, () => repo.materialize(commit, dir)),
    materializeFolder: (commit, path, dir, own) =>
      run('import', `reading the folder ${path} and its sources at ${short(commit)}`, () =>
        repo.materializeFolder(commit, path, dir, own ?? signal),
      ),
    commitFolder: (input) =>
      run('commit', `committing the folder ${input.path} on ${short(input.base)}`, () =>
        repo.commitFolder({ ...input, ...(signal && !input.signal ? { signal } : {}) }),
      ),
    publish: (branch, base, commit) =>
      run(
        'push',
        `moving the branch ${branch} to ${short(commit)}`,
        () => repo.publish(branch, base, commit),
        false,
      ),
    // Removing a failed registration's cache is local housekeeping: not a step of the job.
    discard: () => repo.discard(),
  };
}
