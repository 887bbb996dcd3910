import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  githubInstallationToken,
  gitlabAccessToken,
  installationRepositories,
} from '../../generator/sources/accounts/git-connection-auth.js';
import {
  ConnectionStore,
  type GitConnection,
  type GithubAppConnection,
  type GitlabConnection,
  svcConfigDir,
} from '../../generator/sources/accounts/git-connections.js';
import { credentialScope } from '../../generator/sources/credential-scope.js';
import type { Command, CliIo } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs, requirePositional } from '../../core/parse-args.js';

const usage = `Usage:
  svc git connect github [--id <id>] [--api-url <url>] [--git-url <url>] [--private-key-file <pem>]
  svc git connect gitlab --client-id <id> [--instance <url>] [--git-url <url>] [--id <id>]
                         [--browser [--redirect-port <port>]]
  svc git connect token --id <id> --url <https://host/prefix> [--username <name>]
  svc git connections [--json]
  svc git disconnect <id>
  svc git repos [--connection <id>] [--json]

Git connections are kept in the user's svc config directory ($SVC_CONFIG_DIR, else
~/.config/svc), never in a server folder; their secrets are encrypted there (AES-256-GCM, key
file of mode 0600). A server folder names its connection in config.yaml (source.connection);
create one with \`svc init <dir> --connection <id> --git <owner/name> --ref <branch> --path <file>\`.

connect github: a GitHub App installation, from SVC_GITHUB_APP_ID, SVC_GITHUB_APP_INSTALLATION_ID
  and SVC_GITHUB_APP_PRIVATE_KEY (the PEM, or --private-key-file). --api-url defaults to
  https://api.github.com (GitHub Enterprise: https://host/api/v3), --git-url to https://github.com.
  The connection is checked (an installation token is made) before it is stored.
connect gitlab: an OAuth grant on gitlab.com or a self-managed --instance: the device flow (open
  the page it prints, enter the code, approve; works from a machine without a browser), or with
  --browser the authorization-code flow with PKCE: open the page it prints on this machine,
  approve, and GitLab sends the browser back to svc on http://127.0.0.1:<port>/callback (register
  http://127.0.0.1/callback as the application's redirect URI; --redirect-port fixes the port
  for an instance that matches it exactly). Or a refresh token already made elsewhere in
  SVC_GITLAB_REFRESH_TOKEN (and SVC_GITLAB_CLIENT_SECRET for a confidential app). Only the
  refresh token is kept; every use rotates it.
disconnect: folders that imported through it keep their document; their next import says the
  connection is gone.
connect token: an access token for any other git host or raw URL, from SVC_GIT_TOKEN (sent as
  Basic <username>:<token> over git, default username x-access-token; as Bearer to a raw URL).
  --url is where the token may go: sources under that URL prefix only (https; http only to a
  loopback host); a config.yaml naming the connection with a repository elsewhere is refused.
  Use it with \`svc init … --connection <id> --git <url>\` or \`--raw-url <template>\`.
repos: the repositories a connection can read: a GitHub App installation's, or the GitLab
  projects the grant's user is a member of (read through the rotating refresh token). With
  several such connections, name one with --connection.`;

async function storeOf(io: CliIo): Promise<ConnectionStore> {
  return ConnectionStore.open(svcConfigDir(io.env));
}

/** What `svc git connections` shows of a connection: never a secret. */
function describe(c: GitConnection): Record<string, string> {
  if (c.provider === 'token')
    return {
      id: c.id,
      provider: 'token',
      username: c.username ?? 'x-access-token',
      url: c.urlPrefix ?? '(none: connect it again with --url)',
    };
  return c.provider === 'github'
    ? { id: c.id, provider: 'github', app: c.appId, installation: c.installationId, api: c.apiUrl }
    : { id: c.id, provider: 'gitlab', instance: c.instance, client: c.clientId };
}

function required(io: CliIo, name: string): string {
  const value = io.env[name]?.trim();
  if (!value) throw new SvcError('USAGE', `svc git connect: set ${name}`, { place: { field: name } });
  return value;
}

function httpUrl(value: string, flag: string): string {
  if (!/^https?:\/\/[^/@]+(\/.*)?$/i.test(value)) {
    throw new SvcError('USAGE', `svc git: ${flag} must be an http(s) URL without credentials`, {
      place: { field: flag },
    });
  }
  return value.replace(/\/+$/, '');
}

/** No refresh token given: the device flow, the user approving in a browser anywhere. */
async function deviceFlow(io: CliIo, instance: string, clientId: string): Promise<string> {
  const { gitlabDeviceFlow } = await import('../../generator/sources/accounts/gitlab-device-flow.js');
  const { refreshToken } = await gitlabDeviceFlow({
    instance,
    clientId,
    onCode: ({ userCode, verificationUri, verificationUriComplete }) =>
      io.stderr(
        `To connect svc to ${instance}, open ${verificationUriComplete ?? verificationUri} and enter the code ${userCode}. Waiting…\n`,
      ),
  });
  return refreshToken;
}

/** --browser: the authorization-code flow with PKCE, GitLab sending the browser back to a loopback port. */
async function browserFlow(
  io: CliIo,
  instance: string,
  clientId: string,
  port: string | undefined,
): Promise<string> {
  if (port !== undefined && !/^\d{1,5}$/.test(port)) {
    throw new SvcError('USAGE', 'svc git connect gitlab: --redirect-port must be a port number', {
      place: { field: '--redirect-port' },
    });
  }
  const { gitlabBrowserFlow } = await import('../../generator/sources/accounts/gitlab-browser-flow.js');
  const secret = io.env.SVC_GITLAB_CLIENT_SECRET?.trim();
  const { refreshToken } = await gitlabBrowserFlow({
    instance,
    clientId,
    ...(secret ? { clientSecret: secret } : {}),
    ...(port !== undefined ? { port: Number(port) } : {}),
    onUrl: (url) =>
      io.stderr(
        `To connect svc to ${instance}, open this page in a browser and approve:\n  ${url}\nWaiting…\n`,
      ),
  });
  return refreshToken;
}

async function connect(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('git connect', argv, {
    id: { type: 'string' },
    'api-url': { type: 'string' },
    'git-url': { type: 'string' },
    'private-key-file': { type: 'string' },
    instance: { type: 'string' },
    'client-id': { type: 'string' },
    username: { type: 'string' },
    url: { type: 'string' },
    browser: { type: 'boolean' },
    'redirect-port': { type: 'string' },
  });
  const provider = requirePositional('git connect', positionals, 0, 'the provider: github or gitlab');
  const store = await storeOf(io);
  let connection: GitConnection;
  if (provider === 'github') {
    const appId = required(io, 'SVC_GITHUB_APP_ID');
    const installationId = required(io, 'SVC_GITHUB_APP_INSTALLATION_ID');
    const pem = values['private-key-file']
      ? await readFile(path.resolve(io.cwd, values['private-key-file']), 'utf8')
      : required(io, 'SVC_GITHUB_APP_PRIVATE_KEY');
    const github: GithubAppConnection = {
      id: values.id ?? `github-${installationId}`,
      provider: 'github',
      appId,
      installationId,
      apiUrl: httpUrl(values['api-url'] ?? 'https://api.github.com', '--api-url'),
      gitUrl: httpUrl(values['git-url'] ?? 'https://github.com', '--git-url'),
      privateKey: store.seal(pem.replace(/\\n/g, '\n')),
    };
    // Checked before it is kept: a token for the installation must come back.
    await githubInstallationToken(store, github);
    connection = github;
  } else if (provider === 'gitlab') {
    const instance = httpUrl(values.instance ?? 'https://gitlab.com', '--instance');
    if (!values['client-id']) throw new SvcError('USAGE', 'svc git connect gitlab: --client-id is required');
    const secret = io.env.SVC_GITLAB_CLIENT_SECRET?.trim();
    const gitlab: GitlabConnection = {
      id: values.id ?? `gitlab-${new URL(instance).host.replace(/[^a-z0-9.-]/gi, '-')}`,
      provider: 'gitlab',
      instance,
      ...(values['git-url'] ? { gitUrl: httpUrl(values['git-url'], '--git-url') } : {}),
      clientId: values['client-id'],
      ...(secret ? { clientSecret: store.seal(secret) } : {}),
      refreshToken: store.seal(
        io.env.SVC_GITLAB_REFRESH_TOKEN?.trim() ||
          (values.browser
            ? await browserFlow(io, instance, values['client-id'], values['redirect-port'])
            : await deviceFlow(io, instance, values['client-id'])),
      ),
    };
    // The first refresh proves the grant and already replaces the given refresh token.
    await store.put(gitlab);
    try {
      await gitlabAccessToken(store, gitlab);
    } catch (error) {
      await store.remove(gitlab.id);
      throw error;
    }
    connection = gitlab;
  } else if (provider === 'token') {
    if (!values.id) throw new SvcError('USAGE', 'svc git connect token: --id <id> is required');
    if (!values.url) {
      throw new SvcError(
        'USAGE',
        'svc git connect token: --url <https://host/prefix> is required: the token is sent only to sources under it',
        { place: { field: '--url' } },
      );
    }
    connection = {
      id: values.id,
      provider: 'token',
      urlPrefix: credentialScope(values.url, '--url'),
      ...(values.username ? { username: values.username } : {}),
      token: store.seal(required(io, 'SVC_GIT_TOKEN')),
    };
  } else {
    throw new SvcError(
      'USAGE',
      `svc git connect: the provider is github, gitlab or token, not "${provider}"`,
    );
  }
  if (connection.provider !== 'gitlab') await store.put(connection);
  io.stdout(`Connected ${connection.id} (${connection.provider}).\n`);
  return EXIT.ok;
}

export const gitCommand: Command = {
  name: 'git',
  summary: 'git connections (GitHub App, GitLab OAuth): connect, list, disconnect, list repositories',
  usage,
  async run(argv, io) {
    const json = argv.includes('--json');
    try {
      const [sub, ...rest] = argv;
      if (sub === 'connect') return await connect(rest, io);
      if (sub === 'connections') {
        parseCommandArgs('git connections', rest, { json: { type: 'boolean' } });
        const all = (await (await storeOf(io)).list()).map(describe);
        if (json) io.stdout(`${JSON.stringify(all, null, 2)}\n`);
        else if (all.length === 0) io.stdout('No git connections.\n');
        else
          for (const c of all)
            io.stdout(
              `${Object.entries(c)
                .map(([k, v]) => (k === 'id' ? v : `${k}=${v}`))
                .join('  ')}\n`,
            );
        return EXIT.ok;
      }
      if (sub === 'disconnect') {
        const { positionals } = parseCommandArgs('git disconnect', rest, {});
        const id = requirePositional(
          'git disconnect',
          positionals,
          0,
          'the connection id (svc git connections)',
        );
        if (!(await (await storeOf(io)).remove(id))) {
          throw new SvcError('USAGE', `no git connection "${id}" (see \`svc git connections\`)`);
        }
        io.stdout(`Disconnected ${id}. Folders that imported through it keep their document.\n`);
        return EXIT.ok;
      }
      if (sub === 'repos') {
        const { values } = parseCommandArgs('git repos', rest, {
          connection: { type: 'string' },
          json: { type: 'boolean' },
        });
        const store = await storeOf(io);
        const listable = (await store.list()).filter((c) => c.provider !== 'token');
        const chosen = values.connection ? await store.get(values.connection) : listable[0];
        if (chosen === undefined || chosen.provider === 'token') {
          throw new SvcError(
            'USAGE',
            values.connection
              ? `${values.connection} is a token connection: only a GitHub App or GitLab connection can list repositories`
              : 'no GitHub App or GitLab connection: `svc git connect github` or `svc git connect gitlab` first',
          );
        }
        if (!values.connection && listable.length > 1) {
          throw new SvcError(
            'USAGE',
            `several connections can list repositories: name one with --connection (${listable.map((c) => c.id).join(', ')})`,
          );
        }
        const repos =
          chosen.provider === 'github'
            ? await installationRepositories(store, chosen)
            : await (await import('../../generator/sources/accounts/gitlab-projects.js')).gitlabProjects(
                store,
                chosen,
              );
        if (json) io.stdout(`${JSON.stringify(repos, null, 2)}\n`);
        else for (const r of repos) io.stdout(`${r.fullName}${r.private ? '  (private)' : ''}\n`);
        return EXIT.ok;
      }
      throw new SvcError('USAGE', `svc git: unknown subcommand "${sub ?? ''}"\n${usage}`);
    } catch (error) {
      return fail(io, error, { json });
    }
  },
};
