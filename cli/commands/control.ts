import { SvcError } from '../../core/svc-error.js';
import type { Command, CliIo } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { parseCommandArgs } from '../parse-args.js';
import { waitForSignal } from '../wait-for-signal.js';

const USAGE = `Usage: svc control serve [--port <n>] [--host <addr>] [--data <dir>] [--database-url <url>] [--keep-jobs <n>]
       svc control token workspace --name <name> [--data <dir>] [--database-url <url>]
       svc control token deploy --server <serverId> [--name <name>] [--data <dir>] [--database-url <url>]

The control service: serves published snapshots to runtimes (deploy tokens), takes webhooks,
runs import jobs and shows their status at /servers/<serverId>/imports.

  --port <n>             listen port (default SVC_CONTROL_PORT or 3100)
  --host <addr>          listen address (default SVC_CONTROL_HOST or 127.0.0.1)
  --data <dir>           data directory: embedded database, sealing key, git cache (default SVC_DATA_DIR,
                         else $XDG_STATE_HOME/svc/control or ~/.local/state/svc/control: never the
                         current directory, which is often your repository)
  --database-url <url>   postgres://… to use PostgreSQL instead (default SVC_DATABASE_URL)
  --keep-jobs <n>        finished import jobs kept per server, newest first (default SVC_CONTROL_KEEP_JOBS or 200)

Tokens are printed once and stored hashed. Environment: SVC_CONTROL_KEY (base64 of 32 bytes,
seals webhook secrets; the same on every replica), SVC_GIT_TOKEN (credential for https remotes).`;

const STORE_OPTIONS = {
  data: { type: 'string' },
  'database-url': { type: 'string' },
} as const;

async function storeOptions(values: { data?: string; 'database-url'?: string }, io: CliIo) {
  const databaseUrl = values['database-url'] ?? io.env.SVC_DATABASE_URL;
  const { defaultControlDataDir } = await import('../../control/data-dir.js');
  return {
    dataDir: values.data ?? defaultControlDataDir(io.env),
    ...(databaseUrl ? { databaseUrl } : {}),
  };
}

async function serve(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('control serve', argv, {
    ...STORE_OPTIONS,
    port: { type: 'string' },
    host: { type: 'string' },
    'keep-jobs': { type: 'string' },
  });
  const portText = values.port ?? io.env.SVC_CONTROL_PORT ?? '3100';
  if (!/^\d{1,5}$/.test(portText))
    throw new SvcError('USAGE', `svc control: --port must be a number, not "${portText}"`);
  const { parseKeepJobs, startControl } = await import('../../control/index.js');
  const store = await storeOptions(values, io);
  const keepJobs = parseKeepJobs(
    values['keep-jobs'] ?? io.env.SVC_CONTROL_KEEP_JOBS,
    values['keep-jobs'] !== undefined ? '--keep-jobs' : 'SVC_CONTROL_KEEP_JOBS',
  );
  const running = await startControl({
    ...store,
    port: Number(portText),
    host: values.host ?? io.env.SVC_CONTROL_HOST ?? '127.0.0.1',
    cwd: io.cwd,
    ...(io.env.SVC_CONTROL_KEY ? { controlKey: io.env.SVC_CONTROL_KEY } : {}),
    ...(io.env.SVC_GIT_TOKEN ? { gitToken: io.env.SVC_GIT_TOKEN } : {}),
    keepJobs,
  });
  io.stdout(`svc control listening on ${running.url}\n`);
  await waitForSignal();
  await running.close();
  return EXIT.ok;
}

async function token(argv: string[], io: CliIo): Promise<number> {
  const kind = argv[0];
  const { values } = parseCommandArgs('control token', argv.slice(1), {
    ...STORE_OPTIONS,
    name: { type: 'string' },
    server: { type: 'string' },
  });
  const { openControlStore } = await import('../../control/index.js');
  const { resolve } = await import('node:path');
  const opts = await storeOptions(values, io);
  const store = await openControlStore({ ...opts, dataDir: resolve(io.cwd, opts.dataDir) });
  try {
    if (kind === 'workspace') {
      if (!values.name) throw new SvcError('USAGE', 'svc control token workspace: give --name <name>');
      const created = await store.createWorkspaceToken(values.name);
      io.stdout(`${created.token}\n`);
      return EXIT.ok;
    }
    if (kind === 'deploy') {
      if (!values.server) throw new SvcError('USAGE', 'svc control token deploy: give --server <serverId>');
      if (!(await store.getServer(values.server))) {
        throw new SvcError('USAGE', `no server "${values.server}" is registered`, {
          place: { field: 'server' },
        });
      }
      const created = await store.createDeployToken(values.server, values.name ?? 'deploy');
      io.stdout(`${created.token}\n`);
      io.stderr(`deploy token id ${created.id} (revoke with DELETE /v1/deploy-tokens/${created.id})\n`);
      return EXIT.ok;
    }
    throw new SvcError(
      'USAGE',
      `svc control token: expected "workspace" or "deploy", got "${kind ?? ''}"\n${USAGE}`,
    );
  } finally {
    await store.close();
  }
}

export const controlCommand: Command = {
  name: 'control',
  summary: 'run the control service (snapshots, deploy tokens, webhooks, import jobs) or make tokens',
  usage: USAGE,
  async run(argv, io) {
    try {
      const [sub, ...rest] = argv;
      if (sub === 'serve') return await serve(rest, io);
      if (sub === 'token') return await token(rest, io);
      throw new SvcError('USAGE', `svc control: expected "serve" or "token"\n${USAGE}`);
    } catch (error) {
      return fail(io, error);
    }
  },
};
