/**
 * Git access from one credential handed in from outside the user's machine: the Action's
 * `source-token` input, or a server's source credential in the control service. It follows the
 * CLI's SVC_GIT_TOKEN rules (Basic to a git host, Bearer to a raw URL) and, since neither place
 * has the user's connection store, reads a source that names a connection the way that
 * connection would: a token connection keeps the source's own URL; a GitHub connection is
 * `<githubUrl>/<owner>/<name>.git` when the caller knows the GitHub host. A GitLab connection's
 * instance is known only to the connection store, so such a source is refused with a message.
 */
import { SvcError } from '../../core/svc-error.js';
import type { GitAccess } from './git-access.js';

export interface GivenCredential {
  token: string;
  /** Basic user name for git hosts (default x-access-token). */
  username?: string;
}

export function givenGitAccess(
  credential: GivenCredential | undefined,
  opts: {
    /** What errors tell people to set ("the action's source-token input"). */
    hint: string;
    cacheDir?: string;
    /** Where a GitHub connection's repositories live (the Action's GITHUB_SERVER_URL). */
    githubUrl?: string;
  },
): GitAccess {
  const token = credential?.token || undefined;
  const username = credential?.username || undefined;
  return {
    ...(token ? { token } : {}),
    ...(token && username ? { username } : {}),
    credentialHint: opts.hint,
    ...(opts.cacheDir ? { cacheDir: opts.cacheDir } : {}),
    async credentials(source) {
      const repository = source.repository ?? source.project ?? '';
      const name = repository.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
      let url: string;
      if (source.provider === 'git' || source.provider === 'raw') url = repository;
      else if (source.provider === 'github' && opts.githubUrl) {
        url = `${opts.githubUrl.replace(/\/+$/, '')}/${name}.git`;
      } else {
        throw new SvcError(
          'USAGE',
          `the source reads ${name} through the ${source.provider} connection "${source.connection}", which only the CLI's connection store knows here; change the source to --git <repository URL> and set ${opts.hint}`,
          { place: { field: 'source.connection' } },
        );
      }
      // Reading with no token lets a public repository through and names the hint when refused.
      return { url, username: username ?? 'x-access-token', token: token ?? '' };
    },
  };
}
