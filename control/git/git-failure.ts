/**
 * A git failure in svc's words. isomorphic-git throws its own errors ("An internal error caused
 * this command to fail … Packfile trailer mismatch …"), which say nothing to someone reading an
 * import job's status. An import job's git steps turn them into a GIT_FAILED SvcError naming the
 * repository, the step and what went wrong, with what git said kept short after it. An HTTP
 * answer's body is never quoted (a remote host's text is not ours to show).
 */
import { SvcError } from '../../core/svc-error.js';

export interface GitFailureContext {
  /** The repository as registered (a path or a URL without credentials). */
  repository: string;
  /** The job step ("fetch", "import", "commit", "push"), when a job's. */
  step?: string;
  /** What the step was doing, e.g. "reading the folder at 1a2b3c4". */
  doing: string;
}

interface IsomorphicGitError {
  code?: string;
  message?: string;
  data?: { message?: string; statusCode?: number; statusMessage?: string; reason?: string; oid?: string };
  cause?: unknown;
}

/** The innermost error that is not one of ours (GIT_FAILED wrappers pass their cause through). */
function rootCause(error: unknown): unknown {
  let current = error;
  for (let i = 0; i < 8 && current instanceof SvcError && current.cause !== undefined; i++)
    current = current.cause;
  return current;
}

/** What git said, on one short line, without isomorphic-git's "please report this" boilerplate. */
function gitSaid(cause: IsomorphicGitError): string {
  const text = cause.data?.message ?? cause.message ?? String(cause);
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > 160 ? `${line.slice(0, 157)}…` : line;
}

/** Why, in svc's words; undefined when the error is not one we recognise. */
function reasonOf(cause: IsomorphicGitError): { reason: string; quote: boolean } | undefined {
  const text = `${cause.data?.message ?? ''} ${cause.message ?? ''}`;
  if (
    /packfile trailer mismatch|packfile may be corrupted|invalid checksum|checksum mismatch|incorrect header check|invalid (stored block|distance|code)|unexpected end of file|SHA check failed/i.test(
      text,
    )
  ) {
    return {
      reason:
        "the repository's object store is damaged (a pack file or object fails its checksum); repair it with `git fsck` or register a fresh clone",
      quote: true,
    };
  }
  if (cause.code === 'NotFoundError' || /could not find|no such object/i.test(text)) {
    return {
      reason:
        'an object the commit needs is missing from the repository (an incomplete, shallow or partial clone?)',
      quote: true,
    };
  }
  if (cause.code === 'HttpError') {
    const status = cause.data?.statusCode;
    return {
      reason: `the git host answered HTTP ${status ?? 'with an error'}${status === 401 || status === 403 ? ' (check the credential the service uses for it)' : ''}`,
      quote: false,
    };
  }
  if (cause.code === 'SmartHttpError' || cause.code === 'UnknownTransportError') {
    return { reason: 'the address does not answer as a git server', quote: false };
  }
  const errno = (cause as { code?: string }).code;
  if (errno && /^E[A-Z]+$/.test(errno)) {
    if (/^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ECONNRESET|EHOSTUNREACH|ENETUNREACH)$/.test(errno))
      return { reason: `the git host cannot be reached (${errno})`, quote: false };
    return { reason: `the repository cannot be read on disk (${errno})`, quote: false };
  }
  return undefined;
}

/**
 * `error` from a git step of an import job as a GIT_FAILED SvcError saying what failed where. Our
 * own errors other than GIT_FAILED (a missing folder, a moved branch) are returned as they are.
 */
export function gitStepError(error: unknown, context: GitFailureContext): SvcError {
  if (error instanceof SvcError && error.code !== 'GIT_FAILED') return error;
  const cause = rootCause(error);
  const isoCause = (cause ?? {}) as IsomorphicGitError;
  const known = reasonOf(isoCause);
  const head = `${context.doing} in ${context.repository} failed${context.step ? ` (step ${context.step})` : ''}`;
  let message: string;
  if (known) {
    message = `${head}: ${known.reason}${known.quote ? ` (git: ${gitSaid(isoCause)})` : ''}`;
  } else if (error instanceof SvcError) {
    // Already in our words (GIT_FAILED from the repository layer): add the step and repository.
    message = `${head}: ${error.message}`;
  } else {
    const name = typeof isoCause.code === 'string' ? isoCause.code : 'an unexpected error';
    message = `${head}: git failed with ${name} (git: ${gitSaid(isoCause)})`;
  }
  return new SvcError('GIT_FAILED', message, { place: { url: context.repository }, cause: error });
}
