/**
 * The Action's view of its workspace repository (what actions/checkout made, often shallow), through
 * svc's one git layer: no git binary. The github-token goes to the server the workflow runs on
 * (GITHUB_SERVER_URL) and nowhere else, as the http.<server>/.extraheader actions/checkout persists
 * is scoped; it is handed to isomorphic-git's onAuth only, never to a URL, a log or an error.
 */
import { SvcError } from '../../core/svc-error.js';
import { addressPolicy } from '../../generator/sources/address-policy.js';
import {
  type GitIdentity,
  gitFailureReason,
  type RemoteAccess,
  remoteAccess,
} from '../../generator/sources/git/index.js';

import { createRedactor } from '../../runtime/redact.js';

export const BOT_NAME = 'github-actions[bot]';
export const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';
export const BOT: GitIdentity = { name: BOT_NAME, email: BOT_EMAIL };

/** How the workspace reaches its origin: `token` only to `serverUrl`'s scheme, host and port. */
export function workspaceRemote(token: string, serverUrl: string): RemoteAccess {
  const server = new URL(serverUrl);
  return remoteAccess({
    // The origin is the workflow's own server, a GitHub Enterprise host on a private network included.
    policy: addressPolicy({ allowPrivate: true }),
    ...(token ? { credential: { token, allowed: (url: URL) => url.origin === server.origin } } : {}),
  });
}

/**
 * A failure of a git step as the Action reports it: GIT_FAILED in svc's words, quoting nothing the
 * remote sent, with every secret blanked out (the redactor also catches the encoded forms).
 */
export function redactedGitError(error: unknown, secrets: readonly string[]): SvcError {
  const redact = createRedactor(secrets);
  if (error instanceof SvcError) {
    const message = redact(error.message);
    return message === error.message ? error : new SvcError(error.code, message, { cause: error });
  }
  return new SvcError('GIT_FAILED', redact(`git failed: ${gitFailureReason(error)}`), { cause: error });
}
