/**
 * Credentials for a git source that names a connection: a GitHub App installation token
 * (@octokit/auth-app; one hour, made fresh for each import) or a GitLab OAuth access token from
 * the rotating refresh token (spec 2.6: the refresh invalidates the old refresh token, so the
 * new one is stored, atomically and under a lock, before the access token is used).
 */
import { join } from 'node:path';
import { createAppAuth } from '@octokit/auth-app';
import { Octokit } from '@octokit/rest';
import { SvcError } from '../../../core/svc-error.js';
import { inScope, shownUrl } from '../credential-scope.js';
import { withLock } from '../../../folder/with-lock.js';
import type {
  ConnectionStore,
  GithubAppConnection,
  GitConnection,
  GitlabConnection,
} from './git-connections.js';

export interface GitCredentials {
  /** The repository's smart-HTTP URL. */
  url: string;
  username: string;
  token: string;
}

/** The URL and credentials for `repository` (owner/name, or a GitLab project path) through a connection. */
export async function connectionCredentials(
  store: ConnectionStore,
  connection: GitConnection,
  repository: string,
): Promise<GitCredentials> {
  if (connection.provider === 'token') {
    // The source names the repository by its URL (or is a raw URL): only the token comes from here,
    // and only for the URLs it was given for.
    if (!connection.urlPrefix) {
      throw new SvcError(
        'USAGE',
        `the token connection "${connection.id}" is bound to no URL (it was made by an older svc), so its token is sent nowhere; make it again: SVC_GIT_TOKEN=… svc git connect token --id ${connection.id} --url <https://host/prefix>`,
        { place: { field: 'source.connection' } },
      );
    }
    if (!inScope(repository, connection.urlPrefix)) {
      throw new SvcError(
        'USAGE',
        `the token connection "${connection.id}" is for ${connection.urlPrefix}, not ${shownUrl(repository)}: its token is not sent there`,
        { place: { field: 'source.repository' } },
      );
    }
    return {
      url: repository,
      username: connection.username ?? 'x-access-token',
      token: store.open(connection.token),
    };
  }
  const path = repository.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
  if (connection.provider === 'github') {
    return {
      url: `${connection.gitUrl.replace(/\/+$/, '')}/${path}.git`,
      username: 'x-access-token',
      token: await githubInstallationToken(store, connection),
    };
  }
  return {
    url: `${(connection.gitUrl ?? connection.instance).replace(/\/+$/, '')}/${path}.git`,
    username: 'oauth2',
    token: await gitlabAccessToken(store, connection),
  };
}

function appOctokit(store: ConnectionStore, connection: GithubAppConnection): Octokit {
  return new Octokit({
    baseUrl: connection.apiUrl,
    authStrategy: createAppAuth,
    auth: {
      appId: connection.appId,
      privateKey: store.open(connection.privateKey),
      installationId: connection.installationId,
    },
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
}

export async function githubInstallationToken(
  store: ConnectionStore,
  connection: GithubAppConnection,
): Promise<string> {
  try {
    const auth = (await appOctokit(store, connection).auth({ type: 'installation' })) as { token: string };
    return auth.token;
  } catch (error) {
    throw providerError(
      error,
      `GitHub App ${connection.appId} (installation ${connection.installationId})`,
      connection.apiUrl,
    );
  }
}

/** A repository a connection can read, as `svc git repos` lists it. */
export interface InstallationRepository {
  fullName: string;
  /** Absent when the provider does not say (GitLab's simple project representation). */
  private?: boolean;
  defaultBranch?: string;
}

/** The repositories the installation can read (`svc git repos`, the repository picker). */
export async function installationRepositories(
  store: ConnectionStore,
  connection: GithubAppConnection,
): Promise<InstallationRepository[]> {
  const token = await githubInstallationToken(store, connection);
  const octokit = new Octokit({
    baseUrl: connection.apiUrl,
    auth: token,
    log: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
  });
  try {
    const repos = await octokit.paginate(octokit.rest.apps.listReposAccessibleToInstallation, {
      per_page: 100,
    });
    return repos
      .map((r) => ({
        fullName: r.full_name,
        private: r.private,
        ...(r.default_branch ? { defaultBranch: r.default_branch } : {}),
      }))
      .sort((a, b) => (a.fullName < b.fullName ? -1 : a.fullName > b.fullName ? 1 : 0));
  } catch (error) {
    throw providerError(
      error,
      `the repositories of installation ${connection.installationId}`,
      connection.apiUrl,
    );
  }
}

/**
 * Refreshes under a lock file so two imports never spend the same refresh token: the second
 * waits, then reads the token the first one stored.
 */
export async function gitlabAccessToken(
  store: ConnectionStore,
  connection: GitlabConnection,
): Promise<string> {
  return withLock(join(store.dir, `${connection.id}.refresh`), async () => {
    const current = await store.get(connection.id);
    if (current.provider !== 'gitlab')
      throw new SvcError('INTERNAL', `${connection.id} is not a GitLab connection`);
    const endpoint = `${current.instance.replace(/\/+$/, '')}/oauth/token`;
    const body = new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: store.open(current.refreshToken),
      client_id: current.clientId,
      ...(current.clientSecret ? { client_secret: store.open(current.clientSecret) } : {}),
    });
    let response: Response;
    try {
      response = await fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
      });
    } catch (error) {
      throw new SvcError('SOURCE_UNREACHABLE', `could not reach ${endpoint} to refresh the GitLab token`, {
        place: { url: endpoint },
        cause: error,
      });
    }
    const json = (await response.json().catch(() => ({}))) as {
      access_token?: string;
      refresh_token?: string;
      error?: string;
    };
    if (!response.ok || !json.access_token || !json.refresh_token) {
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `GitLab at ${current.instance} refused the stored refresh token (${json.error ?? `HTTP ${response.status}`}); connect again with \`svc git connect gitlab\``,
        { place: { url: endpoint } },
      );
    }
    // The old refresh token is dead now: keep the new one before anything else can fail.
    await store.put({ ...current, refreshToken: store.seal(json.refresh_token) });
    return json.access_token;
  });
}

function providerError(error: unknown, what: string, apiUrl: string): SvcError {
  if (error instanceof SvcError) return error;
  const status = (error as { status?: number }).status;
  return new SvcError(
    'SOURCE_UNREACHABLE',
    `${what}: ${status ? `HTTP ${status} from ${apiUrl}` : `could not reach ${apiUrl}`}`,
    { place: { url: apiUrl }, ...(status ? { details: [`status ${status}`] } : {}), cause: error },
  );
}
