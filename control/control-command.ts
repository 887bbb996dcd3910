/**
 * `svc control`: serve, make and revoke tokens, print the snapshot-signing public key. It lives
 * with the service because the control image runs it without the CLI (control/main.ts with
 * arguments); the CLI's `svc control` is this same command.
 */
import { resolve } from 'node:path';
import type { CliIo, Command } from '../core/command.js';
import { EXIT } from '../core/exit-codes.js';
import { fail } from '../core/fail.js';
import { parseCommandArgs } from '../core/parse-args.js';
import { SvcError } from '../core/svc-error.js';
import { waitForSignal } from '../core/wait-for-signal.js';
import type { ControlStore } from './store/control-store.js';

const USAGE = `Usage: svc control serve [--port <n>] [--host <addr>] [--data <dir>] [--database-url <url>] [--keep-jobs <n>]
       svc control token workspace --name <name> [--expires-in <days>] [--data <dir>] [--database-url <url>]
       svc control token deploy --server <serverId> [--name <name>] [--data <dir>] [--database-url <url>]
       svc control token list [--server <serverId>] [--data <dir>] [--database-url <url>]
       svc control token revoke <tokenId> [--data <dir>] [--database-url <url>]
       svc control key [--data <dir>]

The control service: serves published snapshots to runtimes (deploy tokens), takes webhooks,
runs import jobs and shows their status at /servers/<serverId>/imports.

  --port <n>             listen port (default SVC_CONTROL_PORT or 3100)
  --host <addr>          listen address (default SVC_CONTROL_HOST or 127.0.0.1)
  --data <dir>           data directory: embedded database, sealing key, git cache (default SVC_DATA_DIR,
                         else $XDG_STATE_HOME/svc/control or ~/.local/state/svc/control: never the
                         current directory, which is often your repository)
  --database-url <url>   postgres://… to use PostgreSQL instead (default SVC_DATABASE_URL)
  --keep-jobs <n>        finished import jobs kept per server, newest first (default SVC_CONTROL_KEEP_JOBS or 200)
  --expires-in <days>    a workspace token stops working after this many days (default: never)

\`key\` prints the public key of the Ed25519 key that signs every snapshot served (made in the
data directory on first use): give it to runtimes as SVC_SNAPSHOT_PUBLIC_KEY.
Tokens are printed once and stored hashed; \`token list\` shows ids, names, last use, expiry and
revocation (never a token), \`token revoke\` takes a workspace or a deploy token id. Environment:
SVC_CONTROL_KEY (base64 of 32 bytes, seals webhook secrets; the same on every replica),
SVC_GIT_TOKEN (credential for https remotes), SVC_GIT_TOKEN_HOSTS (the comma-separated hosts
SVC_GIT_TOKEN is sent to, over https only; without it the token is sent nowhere),
SVC_CONTROL_ALLOW_PRIVATE=1 (repository and source URLs may reach loopback, private and
link-local addresses; refused by default), SVC_CONTROL_TRUST_PROXY=1 (behind a TLS proxy
you run: its X-Forwarded-Proto: https makes the sign-in cookies Secure).`;

const STORE_OPTIONS = {
  data: { type: 'string' },
  'database-url': { type: 'string' },
} as const;

async function storeOptions(values: { data?: string; 'database-url'?: string }, io: CliIo) {
  const databaseUrl = values['database-url'] ?? io.env.SVC_DATABASE_URL;
  const { defaultControlDataDir } = await import('./data-dir.js');
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
  const { parseAllowPrivate, parseHostList, parseKeepJobs, parseTrustProxy, startControl } = await import(
    './index.js'
  );
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
    gitTokenHosts: parseHostList(io.env.SVC_GIT_TOKEN_HOSTS),
    allowPrivateAddresses: parseAllowPrivate(io.env.SVC_CONTROL_ALLOW_PRIVATE),
    keepJobs,
    trustProxy: parseTrustProxy(io.env.SVC_CONTROL_TRUST_PROXY),
  });
  io.stdout(`svc control listening on ${running.url}\n`);
  await waitForSignal();
  await running.close();
  return EXIT.ok;
}

async function key(argv: string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('control key', argv, { data: { type: 'string' } });
  const { loadSigningKey } = await import('./snapshot-signing-key.js');
  const dataDir = resolve(io.cwd, values.data ?? io.env.SVC_DATA_DIR ?? '.svc-control');
  io.stdout((await loadSigningKey(dataDir)).publicKeyPem);
  return EXIT.ok;
}

async function token(argv: string[], io: CliIo): Promise<number> {
  const kind = argv[0];
  const { values, positionals } = parseCommandArgs('control token', argv.slice(1), {
    ...STORE_OPTIONS,
    name: { type: 'string' },
    server: { type: 'string' },
    'expires-in': { type: 'string' },
  });
  const { expiryFromDays, openControlStore } = await import('./index.js');
  let expiresAt: string | undefined;
  if (values['expires-in'] !== undefined) {
    if (kind !== 'workspace')
      throw new SvcError('USAGE', 'svc control token: --expires-in is for workspace tokens');
    expiresAt = expiryFromDays(values['expires-in'], Date.now());
    if (!expiresAt) {
      throw new SvcError(
        'USAGE',
        `--expires-in is a whole number of days from 1 to 3650, not "${values['expires-in']}"`,
        {
          place: { field: 'expires-in' },
        },
      );
    }
  }
  if (kind === 'revoke' && positionals.length !== 1) {
    throw new SvcError('USAGE', 'svc control token revoke: give one token id (see svc control token list)');
  }
  const { resolve } = await import('node:path');
  const opts = await storeOptions(values, io);
  const store = await openControlStore({ ...opts, dataDir: resolve(io.cwd, opts.dataDir) });
  try {
    if (kind === 'workspace') {
      if (!values.name) throw new SvcError('USAGE', 'svc control token workspace: give --name <name>');
      const created = await store.createWorkspaceToken(values.name, expiresAt ? { expiresAt } : {});
      io.stdout(`${created.token}\n`);
      io.stderr(
        `workspace token id ${created.id}${expiresAt ? `, expires ${expiresAt}` : ''} (revoke with svc control token revoke ${created.id})\n`,
      );
      return EXIT.ok;
    }
    if (kind === 'list') {
      await printTokenList(store, values.server, io);
      return EXIT.ok;
    }
    if (kind === 'revoke') {
      const id = positionals[0]!;
      if (await store.revokeWorkspaceToken(id)) {
        io.stdout(`revoked workspace token ${id} (its status-page sessions ended)\n`);
        return EXIT.ok;
      }
      if (await store.revokeDeployToken(id)) {
        io.stdout(`revoked deploy token ${id}\n`);
        return EXIT.ok;
      }
      throw new SvcError(
        'USAGE',
        `no workspace or deploy token has the id "${id}" (see svc control token list)`,
        {
          place: { field: 'tokenId' },
        },
      );
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
      io.stderr(
        `deploy token id ${created.id} (revoke with svc control token revoke ${created.id}, or DELETE /v1/deploy-tokens/${created.id})\n`,
      );
      return EXIT.ok;
    }
    throw new SvcError(
      'USAGE',
      `svc control token: expected "workspace", "deploy", "list" or "revoke", got "${kind ?? ''}"\n${USAGE}`,
    );
  } finally {
    await store.close();
  }
}

/** `svc control token list`: every token's id, name, server, dates and revocation; never a token. */
async function printTokenList(store: ControlStore, server: string | undefined, io: CliIo): Promise<void> {
  const rows: string[][] = [['KIND', 'ID', 'NAME', 'SERVER', 'CREATED', 'LAST USED', 'EXPIRES', 'REVOKED']];
  if (server === undefined) {
    for (const t of await store.listWorkspaceTokens()) {
      rows.push([
        'workspace',
        t.id,
        t.name,
        '-',
        t.created_at,
        t.last_used_at ?? '-',
        t.expires_at ?? '-',
        t.revoked_at ?? '-',
      ]);
    }
  }
  for (const t of await store.listDeployTokens(server)) {
    rows.push([
      'deploy',
      t.id,
      t.name,
      t.server_id,
      t.created_at,
      t.last_used_at ?? '-',
      '-',
      t.revoked_at ?? '-',
    ]);
  }
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  for (const r of rows)
    io.stdout(
      `${r
        .map((cell, i) => cell.padEnd(widths[i]!))
        .join('  ')
        .trimEnd()}\n`,
    );
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
      if (sub === 'key') return await key(rest, io);
      throw new SvcError('USAGE', `svc control: expected "serve", "token" or "key"\n${USAGE}`);
    } catch (error) {
      return fail(io, error);
    }
  },
};
