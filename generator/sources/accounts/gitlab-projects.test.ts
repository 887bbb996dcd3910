/**
 * Listing a GitLab connection's projects against the loopback GitLab stand-in: every page read
 * (x-next-page, or the Link header alone), an access token that expires between two pages
 * refreshed once through the rotating refresh token (never reusing a spent one), and a Link
 * header pointing elsewhere refused before the token goes there.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SvcError } from '../../../core/svc-error.js';
import { ConnectionStore, type GitlabConnection } from './git-connections.js';
import { gitlabProjects, nextPageUrl } from './gitlab-projects.js';
import { type GitlabProject, type GitlabStandIn, startGitlabStandIn } from '../testing/gitlab-stand-in.js';

/** 250 projects, GitLab's order (newest first), three pages of 100. */
const PROJECTS: GitlabProject[] = Array.from({ length: 250 }, (_, i) => ({
  path_with_namespace: `group-${String(i % 7)}/project-${String(249 - i).padStart(3, '0')}`,
  default_branch: i % 2 === 0 ? 'main' : 'trunk',
}));

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0)) await c();
});

async function connected(
  options: Parameters<typeof startGitlabStandIn>[0],
): Promise<{ gitlab: GitlabStandIn; store: ConnectionStore; connection: GitlabConnection }> {
  const gitlab = await startGitlabStandIn({ refreshToken: 'glrt-first', ...options });
  const dir = await mkdtemp(join(tmpdir(), 'svc-gitlab-projects-'));
  cleanup.push(gitlab.close, () => rm(dir, { recursive: true, force: true }));
  const store = await ConnectionStore.open(dir);
  const connection: GitlabConnection = {
    id: 'gl',
    provider: 'gitlab',
    instance: gitlab.url,
    clientId: 'app-1',
    refreshToken: store.seal('glrt-first'),
  };
  await store.put(connection);
  return { gitlab, store, connection };
}

const expected = PROJECTS.map((p) => ({
  fullName: p.path_with_namespace,
  defaultBranch: p.default_branch,
})).sort((a, b) => (a.fullName < b.fullName ? -1 : 1));

describe('gitlabProjects', () => {
  it('reads every page by x-next-page, 100 at a time, sorted by path', async () => {
    const { gitlab, store, connection } = await connected({ projects: PROJECTS });
    expect(await gitlabProjects(store, connection)).toEqual(expected);
    expect(gitlab.projectRequests).toEqual([
      { page: 1, status: 200 },
      { page: 2, status: 200 },
      { page: 3, status: 200 },
    ]);
    expect(gitlab.refreshes).toBe(1);
  });

  it('follows the Link header when GitLab sends no x-next-page (keyset pagination)', async () => {
    const { gitlab, store, connection } = await connected({ projects: PROJECTS, linkOnly: true });
    expect(await gitlabProjects(store, connection)).toEqual(expected);
    expect(gitlab.projectRequests.map((r) => r.page)).toEqual([1, 2, 3]);
  });

  it('refreshes an access token that expires between two pages, and keeps the newest refresh token', async () => {
    const { gitlab, store, connection } = await connected({ projects: PROJECTS });
    let expired = false;
    gitlab.onProjectsPage = (page) => {
      if (page === 2 && !expired) {
        expired = true;
        gitlab.expireAccessTokens();
      }
    };
    expect(await gitlabProjects(store, connection)).toEqual(expected);
    expect(gitlab.projectRequests).toEqual([
      { page: 1, status: 200 },
      { page: 2, status: 401 },
      { page: 2, status: 200 },
      { page: 3, status: 200 },
    ]);
    expect(gitlab.refreshes).toBe(2);
    expect(gitlab.spent).toEqual([]);
    // The store holds the refresh token issued last, the only one still alive.
    const stored = await store.get('gl');
    expect(stored.provider === 'gitlab' && store.open(stored.refreshToken)).toBe(gitlab.latestRefreshToken());
    expect(gitlab.live).toEqual(new Set([gitlab.latestRefreshToken()]));
  });

  it('gives up with a clear error when the refreshed token is refused as well', async () => {
    const { gitlab, store, connection } = await connected({ projects: PROJECTS });
    gitlab.onProjectsPage = () => gitlab.expireAccessTokens();
    const error = await gitlabProjects(store, connection).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).message).toBe(`the projects of gl: HTTP 401 from ${gitlab.url}`);
    expect(gitlab.refreshes).toBe(2);
  });

  it('an empty membership is an empty list', async () => {
    const { store, connection } = await connected({ projects: [] });
    expect(await gitlabProjects(store, connection)).toEqual([]);
  });
});

describe('nextPageUrl', () => {
  const current = new URL(
    'https://gitlab.example.test/api/v4/projects?membership=true&simple=true&per_page=100',
  );

  it('sets the page from x-next-page, and stops on an empty one', () => {
    expect(nextPageUrl(current, new Headers({ 'x-next-page': '4' }))?.searchParams.get('page')).toBe('4');
    expect(
      nextPageUrl(current, new Headers({ 'x-next-page': '', link: `<${current.href}&page=9>; rel="next"` })),
    ).toBe(undefined);
  });

  it('takes rel="next" from a Link header among others', () => {
    const next = 'https://gitlab.example.test/api/v4/projects?id_after=42&pagination=keyset';
    const link = `<${current.href}>; rel="first", <${next}>; rel="next"`;
    expect(nextPageUrl(current, new Headers({ link }))?.href).toBe(next);
    expect(nextPageUrl(current, new Headers({ link: `<${current.href}>; rel="first"` }))).toBe(undefined);
  });

  it('refuses a next page on another origin, so the token is never sent there', () => {
    const link = '<https://elsewhere.example/api/v4/projects?page=2>; rel="next"';
    expect(() => nextPageUrl(current, new Headers({ link }))).toThrow(/another origin/);
  });
});
