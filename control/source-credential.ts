/**
 * A server's source credential: what an import job reads the server's *source* with when the
 * folder's config.yaml names a private git repository or raw URL (the folder's own repository
 * has SVC_GIT_TOKEN). Set through the API, kept sealed with the service key like webhook secrets,
 * handed to the generator only as git access for the one job, and never returned or logged.
 */
import { SvcError } from '../core/svc-error.js';
import type { GitAccess } from '../generator/import/source-reader.js';
import type { AddressPolicy } from '../generator/sources/address-policy.js';
import { inScope, shownUrl } from '../generator/sources/credential-scope.js';
import type { Source } from '../schemas/types.js';
import { givenGitAccess } from '../generator/sources/git-given-credential.js';
import type { SecretBox } from '../core/secret-box.js';

export interface SourceCredential {
  /** Basic user name for a git host (default x-access-token); raw URLs get the token as Bearer. */
  username?: string;
  token: string;
  /**
   * The URL prefix the token may go to (credential-scope.ts), recorded when it was set and sealed
   * with it. Absent only in a credential set by an older service: such a one is sent nowhere.
   */
  scope?: string;
}

/** What `PUT …/source-credential` takes: the credential and, optionally, the URL it is for. */
export interface SourceCredentialInput {
  username?: string;
  token: string;
  url?: string;
}

// Control characters would break the Authorization header; a ':' cannot be in a Basic user name.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** The body of `PUT /v1/servers/{id}/source-credential`; messages never quote the token. */
export function parseSourceCredential(body: unknown): SourceCredentialInput {
  const value = (body ?? {}) as Record<string, unknown>;
  const { token, username, url } = value;
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
  if (url !== undefined && typeof url !== 'string') {
    throw new SvcError('USAGE', 'url must be a string: the URL prefix the token is for', {
      place: { field: 'url' },
    });
  }
  for (const key of Object.keys(value)) {
    if (key !== 'token' && key !== 'username' && key !== 'url') {
      throw new SvcError('USAGE', `unknown field "${key}": give {token, username?, url?}`, {
        place: { field: key },
      });
    }
  }
  return {
    token,
    ...(username !== undefined ? { username } : {}),
    ...(url !== undefined ? { url } : {}),
  };
}

/**
 * The URL a server's source credential is for when the caller names none: the source that
 * config.yaml on the tracked branch names now (a git repository's URL; a raw URL template up to
 * its first placeholder). Undefined when the source is neither.
 */
export function sourceUrlOf(source: Source): string | undefined {
  if (source.kind !== 'git') return undefined;
  if (source.provider === 'git' && source.repository) return source.repository;
  if (source.provider === 'raw' && source.rawUrlTemplate) {
    const fixed = source.rawUrlTemplate.split('{')[0] ?? '';
    return fixed.slice(0, fixed.lastIndexOf('/') + 1) || undefined;
  }
  return undefined;
}

export function sealSourceCredential(box: SecretBox, credential: SourceCredential): string {
  return box.seal(JSON.stringify(credential));
}

export function openSourceCredential(box: SecretBox, sealed: string): SourceCredential {
  const parsed = JSON.parse(box.open(sealed)) as SourceCredential;
  return {
    token: parsed.token,
    ...(parsed.username ? { username: parsed.username } : {}),
    ...(parsed.scope ? { scope: parsed.scope } : {}),
  };
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
    ...(credential ? { allowToken: (url: string) => checkScope(serverId, credential, url) } : {}),
  };
}

/** The credential goes only where it was set for: refused (naming both) anywhere else. */
function checkScope(serverId: string, credential: SourceCredential, url: string): void {
  const again = `set it again with PUT /v1/servers/${serverId}/source-credential {"token": …, "url": "https://host/prefix"}`;
  if (!credential.scope) {
    throw new SvcError(
      'USAGE',
      `the server's source credential was set before credentials were bound to a URL, so it is sent nowhere; ${again}`,
      { place: { field: 'source.repository' } },
    );
  }
  if (!inScope(url, credential.scope)) {
    throw new SvcError(
      'USAGE',
      `the server's source credential is for ${credential.scope}, not ${shownUrl(url)}: it is not sent there (to read this source, ${again})`,
      { place: { field: 'source.repository' } },
    );
  }
}
