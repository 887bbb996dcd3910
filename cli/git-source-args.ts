/**
 * The git or raw-URL source that --git/--raw-url, --ref, --path, --content and --connection
 * describe: shared by `svc init` and `svc source set`, so both read the same source the same way.
 */
import { SvcError } from '../core/svc-error.js';
import { checkGitUrl } from '../generator/sources/git-url.js';
import type { Source } from '../schemas/types.js';
import type { CliIo } from '../core/command.js';

export type GitSource = Extract<Source, { kind: 'git' }>;

/** The git or raw-URL source --git/--raw-url with --ref, --path and --content describe. */
export function gitSourceOf(
  command: string,
  values: {
    git?: string;
    connection?: string;
    'raw-url'?: string;
    ref?: string;
    path?: string;
    content?: string;
  },
  provider?: 'github' | 'gitlab' | 'token',
): GitSource | undefined {
  const url = values.git ?? values['raw-url'];
  if (url === undefined) {
    if (values.ref !== undefined || values.path !== undefined) {
      throw new SvcError('USAGE', `${command}: --ref and --path go with --git or --raw-url`);
    }
    return undefined;
  }
  const flag = values.git !== undefined ? '--git' : '--raw-url';
  if (!values.ref) throw new SvcError('USAGE', `${command}: ${flag} needs --ref <branch>`);
  if (!values.path) throw new SvcError('USAGE', `${command}: ${flag} needs --path <file in the repository>`);
  if (provider === 'token') {
    // A stored token: the source keeps its URL, the connection supplies the secret.
    const { connection: _, ...plain } = values;
    const source = gitSourceOf(command, plain);
    return source && { ...source, connection: values.connection as string };
  }
  if (values.git !== undefined && values.connection !== undefined && provider) {
    const repo = values.git.replace(/^\/+|\/+$/g, '').replace(/\.git$/, '');
    if (!/^[\w.-]+(\/[\w.-]+)+$/.test(repo)) {
      throw new SvcError(
        'USAGE',
        `${command}: with --connection, --git names the repository as owner/name, not "${values.git}"`,
      );
    }
    return {
      kind: 'git',
      provider,
      ...(provider === 'github' ? { repository: repo } : { project: repo }),
      connection: values.connection,
      branch: values.ref,
      path: values.path,
      ...(values.content ? { contentDir: values.content } : {}),
    };
  }
  if (values.connection !== undefined)
    throw new SvcError('USAGE', `${command}: --connection goes with --git <owner/name>`);
  if (values.git !== undefined) {
    return {
      kind: 'git',
      provider: 'git',
      repository: checkGitUrl(values.git, 'git'),
      branch: values.ref,
      path: values.path,
      ...(values.content ? { contentDir: values.content } : {}),
    };
  }
  if (values.content) {
    throw new SvcError(
      'USAGE',
      `${command}: a raw URL imports tools only (it cannot list content directories); drop --content or use --git`,
    );
  }
  if (!/^https?:\/\//i.test(url))
    throw new SvcError('USAGE', `${command}: --raw-url must be an http(s) URL template`);
  return { kind: 'git', provider: 'raw', rawUrlTemplate: url, branch: values.ref, path: values.path };
}

/** The provider of a stored git connection (which must exist). */
export async function connectionProvider(io: CliIo, id: string): Promise<'github' | 'gitlab' | 'token'> {
  const { ConnectionStore, svcConfigDir } = await import('../generator/sources/accounts/git-connections.js');
  return (await (await ConnectionStore.open(svcConfigDir(io.env))).get(id)).provider;
}
