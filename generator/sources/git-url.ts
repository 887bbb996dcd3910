/**
 * What a git source's URL may be, and how it is named in history and reports: kept apart from
 * the reader so that checking a URL (svc init) and naming a source (every import) do not load
 * isomorphic-git.
 */
import { SvcError } from '../../core/svc-error.js';

/** The location recorded in history and reports for a git source: no credentials, no token. */
export function gitLocation(spec: { url: string; branch: string; path: string }): string {
  return `git+${spec.url}#${spec.branch}:${spec.path}`;
}

/** Refuses what would put a secret into config.yaml: user:password@ in the URL. */
export function checkGitUrl(url: string, field = 'source.repository'): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (cause) {
    throw new SvcError('USAGE', `the git URL "${url}" is not a valid URL`, { place: { field }, cause });
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SvcError('USAGE', 'a git source is read over http(s) (smart HTTP); give an http(s) URL', {
      place: { field },
    });
  }
  if (parsed.username || parsed.password) {
    throw new SvcError(
      'USAGE',
      'a git URL with credentials (user:password@) would put a secret into the folder; set SVC_GIT_TOKEN instead',
      { place: { field } },
    );
  }
  return url;
}
