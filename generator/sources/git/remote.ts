/**
 * Fetch and push over smart HTTP with isomorphic-git, through the guarded HTTP client
 * (guarded-http.ts: every hop's address checked by a policy and pinned, redirects followed by
 * hand, the Authorization header never sent after a redirect to another origin, answers capped).
 * A credential is handed to isomorphic-git's onAuth only, and only for a URL on the host it was
 * given for: never in a URL, an argument, an error or a file.
 */
import fs from 'node:fs';
import git, { type AuthCallback, type HttpClient } from 'isomorphic-git';
import { SvcError } from '../../../core/svc-error.js';
import { type AddressPolicy, addressPolicy } from '../address-policy.js';
import { guardedGitHttp } from './guarded-http.js';

export const DEFAULT_MAX_FETCH_BYTES = 512 * 1024 * 1024;

export interface RemoteCredential {
  token: string;
  /** Basic user name sent with the token (default x-access-token, GitHub's convention). */
  username?: string;
  /**
   * Whether the credential may go to `url` (default: never). Checked on every request for
   * credentials, so a remote elsewhere never receives it.
   */
  allowed(url: URL): boolean;
}

export interface RemoteOptions {
  /** Which addresses a remote may be reached at (default: public addresses only). */
  policy?: AddressPolicy;
  /** Most bytes one answer may bring (default 512 MiB). */
  maxBytes?: number;
  credential?: RemoteCredential;
  /**
   * When the remote asks for credentials none may answer, or refuses them: 'status' lets its 401
   * stand (an HttpError), 'cancel' stops with isomorphic-git's UserCanceledError. Default 'status'.
   */
  refused?: 'status' | 'cancel';
}

/** The HTTP client and auth callbacks isomorphic-git's fetch and push take. */
export interface RemoteAccess {
  http: HttpClient;
  onAuth: AuthCallback;
  onAuthFailure: AuthCallback;
  /** Whether a credential was given but may not go to `url` (for an error that says why). */
  withheldFrom(url: string): boolean;
}

/** Whether `url` is on loopback (where tests' git servers listen). */
export function isLoopbackUrl(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/**
 * A credential for the hosts listed (`host` or `host:port`), only over https (http for a loopback
 * host, as tests use).
 */
export function hostScopedCredential(
  token: string,
  hosts: readonly string[],
  username = 'x-access-token',
): RemoteCredential {
  return { token, username, allowed: (url) => tokenAllowedFor(url, hosts) };
}

/** Whether a credential for `hosts` may go to `url`: a listed host, over https or to loopback. */
export function tokenAllowedFor(url: URL, hosts: readonly string[] | undefined): boolean {
  if (!hosts || hosts.length === 0) return false;
  const host = url.host.toLowerCase();
  const listed = hosts.some((h) => {
    const want = h.trim().toLowerCase();
    return want !== '' && (want === host || want === url.hostname.toLowerCase());
  });
  if (!listed) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackUrl(url));
}

export function remoteAccess(opts: RemoteOptions = {}): RemoteAccess {
  const credential = opts.credential;
  const refused = opts.refused === 'cancel' ? { cancel: true } : undefined;
  const allowed = (url: string): boolean => {
    try {
      return credential !== undefined && credential.token !== '' && credential.allowed(new URL(url));
    } catch {
      return false;
    }
  };
  return {
    http: guardedGitHttp({
      policy: opts.policy ?? addressPolicy(),
      maxBytes: opts.maxBytes ?? DEFAULT_MAX_FETCH_BYTES,
    }),
    // Asked after a 401: the credential when it may go there; else nothing, and the 401 stands.
    onAuth: (url) =>
      credential && allowed(url)
        ? { username: credential.username ?? 'x-access-token', password: credential.token }
        : refused,
    // A credential refused once is not offered again.
    onAuthFailure: () => refused,
    withheldFrom: (url) => credential !== undefined && credential.token !== '' && !allowed(url),
  };
}

/** The branch moved on the remote (or locally) while we worked: a push would not fast-forward. */
export class BranchMovedError extends SvcError {
  constructor(branch: string) {
    super('GIT_FAILED', `the branch ${branch} moved while the import ran`);
  }
}

export interface FetchBranchInput {
  gitdir: string;
  /** The remote's URL, or the name of a remote configured in the repository. */
  remote: { url: string } | { name: string };
  branch: string;
  depth?: number;
  access: RemoteAccess;
  cache?: object;
}

/** Fetches one branch (no tags), shallow when `depth` is given; the fetched tip's commit id. */
export async function fetchBranch(input: FetchBranchInput): Promise<string> {
  const fetched = await git.fetch({
    fs,
    http: input.access.http,
    gitdir: input.gitdir,
    ...('url' in input.remote ? { url: input.remote.url } : { remote: input.remote.name }),
    ref: input.branch,
    remoteRef: input.branch,
    singleBranch: true,
    tags: false,
    ...(input.depth ? { depth: input.depth } : {}),
    onAuth: input.access.onAuth,
    onAuthFailure: input.access.onAuthFailure,
    ...(input.cache ? { cache: input.cache } : {}),
  });
  if (!fetched.fetchHead) throw new SvcError('GIT_FAILED', `no branch ${input.branch}`);
  return fetched.fetchHead;
}

export interface PushInput {
  gitdir: string;
  remote: string;
  /** The local ref pushed (a branch name, `refs/...` or `HEAD`). */
  ref: string;
  /** The remote branch it goes to. */
  branch: string;
  access: RemoteAccess;
  cache?: object;
}

/** Whether the remote's reason for refusing a ref says the branch is not where we started from. */
const MOVED_REASON = /fast-forward|fetch first|stale/i;
/** Whether isomorphic-git refused to push (before sending) because the branch moved. */
const MOVED_ERROR = /not a simple fast-forward|non-fast-forward|PushRejected|rejected/i;

/**
 * Pushes `ref` to the remote's `branch`. BranchMovedError when the branch moved on the remote;
 * any other failure as isomorphic-git threw it, or a GIT_FAILED SvcError with the remote's reason.
 */
export async function pushBranch(input: PushInput): Promise<void> {
  let result: Awaited<ReturnType<typeof git.push>>;
  try {
    result = await git.push({
      fs,
      http: input.access.http,
      gitdir: input.gitdir,
      remote: input.remote,
      ref: input.ref,
      remoteRef: `refs/heads/${input.branch}`,
      onAuth: input.access.onAuth,
      onAuthFailure: input.access.onAuthFailure,
      ...(input.cache ? { cache: input.cache } : {}),
    });
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === 'PushRejectedError' || MOVED_ERROR.test(String(error)))
      throw new BranchMovedError(input.branch);
    throw error;
  }
  if (result.ok) return;
  const reason = Object.values(result.refs ?? {})
    .map((r) => r.error)
    .filter(Boolean)
    .join('; ');
  if (MOVED_REASON.test(reason)) throw new BranchMovedError(input.branch);
  throw new SvcError(
    'GIT_FAILED',
    // The remote's reason, on one short line.
    `the push of ${input.branch} was refused: ${(reason || String(result.error ?? 'refused'))
      .replace(/[\u0000-\u001f\u007f]+/g, ' ')
      .slice(0, 200)}`,
  );
}
