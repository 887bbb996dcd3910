/**
 * A server's source credential: what an import job reads the server's *source* with when the
 * folder's config.yaml names a private git repository or raw URL (the folder's own repository
 * has SVC_GIT_TOKEN). Set through the API, kept sealed with the service key like webhook secrets,
 * handed to the generator only as git access for the one job, and never returned or logged.
 */
import { SvcError } from '../core/svc-error.js';
import type { GitAccess } from '../generator/import/source-reader.js';
import type { AddressPolicy } from '../generator/sources/address-policy.js';
import { givenGitAccess } from '../generator/sources/git-given-credential.js';
import type { SecretBox } from './secret-box.js';

export interface SourceCredential {
  /** Basic user name for a git host (default x-access-token); raw URLs get the token as Bearer. */
  username?: string;
  token: string;
}

// Control characters would break the Authorization header; a ':' cannot be in a Basic user name.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The body of `PUT /v1/servers/{id}/source-credential`; messages never quote the token. */
export function parseSourceCredential(body: unknown): SourceCredential {
  const value = (body ?? {}) as Record<string, unknown>;
  const { token, username } = value;
  if (typeof token !== 'string' || token.trim() === '') {
    throw new SvcError('USAGE', 'give {"token": "…"} (and optionally "username") as strings', {
      place: { field: 'token' },
    });
  }
  if (token.length > 8192 || CONTROL.test(token) || token !== token.trim()) {
    throw new SvcError(
      'USAGE',
      'the token must be at most 8192 characters, without spaces around it or control characters',
      { place: { field: 'token' } },
    );
  }
  if (username !== undefined) {
    if (
      typeof username !== 'string' ||
      username === '' ||
      username.length > 256 ||
      CONTROL.test(username) ||
      username.includes(':')
    ) {
      throw new SvcError('USAGE', 'username must be a non-empty string without ":" or control characters', {
        place: { field: 'username' },
      });
    }
  }
  for (const key of Object.keys(value)) {
    if (key !== 'token' && key !== 'username') {
      throw new SvcError('USAGE', `unknown field "${key}": give {token, username?}`, {
        place: { field: key },
      });
    }
  }
  return { token, ...(username !== undefined ? { username } : {}) };
}

export function sealSourceCredential(box: SecretBox, credential: SourceCredential): string {
  return box.seal(JSON.stringify(credential));
}

export function openSourceCredential(box: SecretBox, sealed: string): SourceCredential {
  const parsed = JSON.parse(box.open(sealed)) as SourceCredential;
  return { token: parsed.token, ...(parsed.username ? { username: parsed.username } : {}) };
}

/** The API call that sets it, as error messages name it. */
export function sourceCredentialHint(serverId: string): string {
  return `the server's source credential (PUT /v1/servers/${serverId}/source-credential)`;
}

/** How an import job of `serverId` reads its source: with the credential when one is set. */
export function sourceGitAccess(
  serverId: string,
  credential: SourceCredential | undefined,
  cacheDir: string,
  policy?: AddressPolicy,
): GitAccess {
  return {
    ...givenGitAccess(credential, { hint: sourceCredentialHint(serverId), cacheDir }),
    ...(policy ? { policy } : {}),
  };
}
