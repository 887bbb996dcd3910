/**
 * The projects a GitLab connection's user is a member of (`svc git repos` for a GitLab
 * connection, the repository picker): GET /api/v4/projects?membership=true&simple=true, 100 a
 * page, following `x-next-page` (offset pagination) or else the Link header's rel="next" (keyset
 * pagination sends only that). The access token comes from the rotating refresh token; an access
 * token that expires while the pages are read (401) is refreshed once and the page asked again.
 */
import { SvcError } from '../../../core/svc-error.js';
import { gitlabAccessToken, type InstallationRepository } from './git-connection-auth.js';
import type { ConnectionStore, GitlabConnection } from './git-connections.js';

/** Far more than any user's memberships (100,000 projects): a server that never ends its pages stops here. */
const MAX_PAGES = 1000;

interface ProjectJson {
  path_with_namespace?: unknown;
  default_branch?: unknown;
  visibility?: unknown;
}

/** The next page's URL, on the instance's own origin only: the token is never sent elsewhere. */
export function nextPageUrl(current: URL, headers: Headers): URL | undefined {
  const nextPage = headers.get('x-next-page');
  if (nextPage !== null) {
    // Empty on the last page.
    if (!/^\d+$/.test(nextPage.trim())) return undefined;
    const next = new URL(current);
    next.searchParams.set('page', nextPage.trim());
    return next;
  }
  for (const part of (headers.get('link') ?? '').split(',')) {
    const match = /^\s*<([^>]+)>\s*;(.*)$/.exec(part);
    if (!match || !/\brel\s*=\s*"?next"?/i.test(match[2] ?? '')) continue;
    const next = new URL(match[1] as string, current);
    if (next.origin !== current.origin) {
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `GitLab's next page points to another origin (${next.origin})`,
        {
          place: { url: current.origin },
        },
      );
    }
    return next;
  }
  return undefined;
}

async function get(url: URL, token: string): Promise<Response> {
  try {
    return await fetch(url, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });
  } catch (error) {
    throw new SvcError('SOURCE_UNREACHABLE', `could not reach ${url.origin} to list GitLab projects`, {
      place: { url: `${url.origin}${url.pathname}` },
      cause: error,
    });
  }
}

export async function gitlabProjects(
  store: ConnectionStore,
  connection: GitlabConnection,
): Promise<InstallationRepository[]> {
  const api = `${connection.instance.replace(/\/+$/, '')}/api/v4/projects`;
  let url: URL | undefined = new URL(`${api}?membership=true&simple=true&per_page=100`);
  let token = await gitlabAccessToken(store, connection);
  const seen = new Set<string>();
  const out: InstallationRepository[] = [];
  for (let pages = 0; url; pages++) {
    if (pages === MAX_PAGES || seen.has(url.href)) {
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `GitLab at ${connection.instance} did not end its project pages`,
        {
          place: { url: api },
        },
      );
    }
    seen.add(url.href);
    let response = await get(url, token);
    if (response.status === 401) {
      // Expired (or revoked) while the pages were read: one more refresh, then the same page.
      await response.body?.cancel();
      token = await gitlabAccessToken(store, connection);
      response = await get(url, token);
    }
    if (!response.ok) {
      await response.body?.cancel();
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `the projects of ${connection.id}: HTTP ${response.status} from ${connection.instance}`,
        { place: { url: api }, details: [`status ${response.status}`] },
      );
    }
    const page = (await response.json().catch(() => undefined)) as ProjectJson[] | undefined;
    if (!Array.isArray(page)) {
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `GitLab at ${connection.instance} did not answer a list of projects`,
        {
          place: { url: api },
        },
      );
    }
    for (const p of page) {
      if (typeof p.path_with_namespace !== 'string') continue;
      out.push({
        fullName: p.path_with_namespace,
        // The simple representation leaves visibility out; say private only when GitLab says so.
        ...(typeof p.visibility === 'string' ? { private: p.visibility !== 'public' } : {}),
        ...(typeof p.default_branch === 'string' ? { defaultBranch: p.default_branch } : {}),
      });
    }
    url = nextPageUrl(url, response.headers);
  }
  return out.sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0));
}
