import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseEnv } from 'node:util';
import { isSvcError, SvcError } from '../../core/svc-error.js';
import { cacheDir, openSchemaCheckCache } from '../../folder/schema-check-cache.js';
import {
  holdBootHeap,
  parseRuntimeEnv,
  RUNTIME_ENV_VARIABLES,
  startRuntime,
  startRuntimes,
} from '../../runtime/index.js';
import type { CliIo, Command } from '../../core/command.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs } from '../../core/parse-args.js';
import { waitForSignal } from '../../core/wait-for-signal.js';

/**
 * One line per variable the runtime reads: a variable added to RUNTIME_ENV_VARIABLES fails the
 * type-check until it has one. A deprecated variable (null) is still read but not advertised.
 */
const VARIABLE_HELP: Record<(typeof RUNTIME_ENV_VARIABLES)[number], string | null> = {
  SVC_FOLDER_PATH: 'the server folder to serve when <dir> is not given',
  SVC_BUNDLE_PATH: null,
  FLOWCP_BUNDLE_PATH: null,
  SVC_RUNTIME_MODE: 'standalone (the only mode)',
  SVC_UPSTREAM_SECRET:
    'the credential sent to the upstream API (api_key, bearer; basic: the password, or user:password)',
  SVC_UPSTREAM_USER: 'the user name of basic auth (else SVC_UPSTREAM_SECRET holds user:password)',
  MCP_RUNTIME_PORT: 'listen port (default 3002; 0 picks a free one)',
  MCP_RUNTIME_HOST: 'listen address (default 127.0.0.1)',
  MCP_RUNTIME_PUBLIC_URL: "the server's public origin, for the Origin check behind a proxy",
  MCP_ALLOWED_ORIGINS: 'comma-separated browser origins allowed to call /mcp (unset: any, with a warning)',
  SVC_SYNC_URL: 'control service to poll for the published config',
  SVC_DEPLOY_TOKEN: 'token for SVC_SYNC_URL (required with it)',
  SVC_SYNC_INTERVAL: 'seconds between polls of SVC_SYNC_URL (default 60, at least 10)',
  SVC_UPSTREAM_TIMEOUT_MS: 'timeout of one upstream call in milliseconds (default 30000)',
  SVC_MAX_RESPONSE_BYTES: 'largest upstream response passed on, in bytes (default 10 MiB)',
  SVC_SESSION_SECRET:
    'shared by every replica (32+ bytes, hex or base64): 2025-era sessions any replica can serve',
  SVC_CONFIG_VERSIONS: 'configs kept for the sessions opened on them (default 3)',
  SVC_SESSION_MAX_AGE: 'seconds a signed session id lives, from initialize (default 86400)',
  SVC_SNAPSHOT_PUBLIC_KEY: 'PEM or path of `svc control key`: serve only snapshots it signed',
  SVC_RUNTIME_ID: 'the name this runtime gives the control service when it polls (default hostname)',
  SVC_STATE_DIR:
    'writable directory kept across restarts: the last signed snapshot accepted (rollback protection)',
  SVC_TRUST_PROXY:
    "the balancer's addresses/CIDRs: the client is the X-Forwarded-For entry it added (1: the first entry)",
  SVC_METRICS: '0 turns GET /metrics and its counters off (default on)',
  SVC_METRICS_TOKEN: 'bearer token GET /metrics requires (unset: open, like /healthz)',
  SVC_EXECUTION_LOG: 'one JSON line per tool call: stdout, or a file path rotated by size (unset: off)',
  SVC_EXECUTION_LOG_MAX_BYTES: 'rotate the execution log file past this many bytes (default 10 MiB)',
  SVC_LOG_ARGUMENTS: '1: the execution log also carries arguments and results, redacted (default 0)',
  SVC_SHUTDOWN_GRACE_MS: 'on SIGTERM, how long in-flight calls may take to finish (default 10000)',
  OTEL_EXPORTER_OTLP_ENDPOINT:
    'OpenTelemetry collector (OTLP/HTTP): traces go to <endpoint>/v1/traces (unset: no tracing)',
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'the full OTLP/HTTP traces URL, instead of OTEL_EXPORTER_OTLP_ENDPOINT',
  OTEL_EXPORTER_OTLP_HEADERS: 'headers sent to the collector, key=value,key=value',
  OTEL_SERVICE_NAME: 'service.name of the spans (default svc-runtime)',
  OTEL_TRACES_SAMPLER: 'OpenTelemetry sampler (default parentbased_always_on)',
  OTEL_TRACES_SAMPLER_ARG: "the sampler's argument (e.g. the ratio of traceidratio)",
  OTEL_SDK_DISABLED: 'true: no tracing, whatever else is set',
  MCP_AUTH: 'inbound protection of /mcp: none (default), bearer or oauth (docs/oauth.md)',
  SVC_MCP_TOKENS: 'comma-separated SHA-256 hashes (hex) of the tokens clients present (MCP_AUTH=bearer)',
  SVC_OAUTH_KEY: '32 random bytes, base64: seals the tokens the OAuth facade issues (user_oauth)',
  SVC_OAUTH_CLIENT_ID:
    "the upstream OAuth client's id (user_oauth; config.yaml oauth.clientIdEnv renames it)",
  SVC_OAUTH_CLIENT_SECRET:
    "the upstream OAuth client's secret (user_oauth; oauth.clientSecretEnv renames it)",
  MCP_OAUTH_ISSUER:
    'the OpenID provider people sign in at (MCP_AUTH=oauth; with SVC_OAUTH_KEY and SVC_OAUTH_CLIENT_ID)',
  SVC_OAUTH_ALLOW_LOOPBACK:
    '1: accept http loopback client metadata documents and redirects (local use, tests)',
  SVC_OAUTH_ALLOW_PRIVATE:
    '1: fetch client metadata documents from private and internal addresses (refused by default)',
};

function environmentHelp(): string {
  const shown = RUNTIME_ENV_VARIABLES.filter((v) => VARIABLE_HELP[v] !== null);
  const width = Math.max(...shown.map((v) => v.length));
  return shown.map((v) => `  ${v.padEnd(width)}  ${VARIABLE_HELP[v] ?? ''}`.trimEnd()).join('\n');
}

/**
 * The variables of the folder's `.env` (what `.env.example` tells users to fill in), for those not
 * already set in the environment, which wins. Undefined when the folder has no `.env`.
 */
async function folderDotEnv(
  folder: string,
  env: Readonly<Record<string, string | undefined>>,
): Promise<{ file: string; added: Record<string, string> } | undefined> {
  const file = path.join(folder, '.env');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (
      (error as NodeJS.ErrnoException).code === 'ENOENT' ||
      (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    )
      return undefined;
    throw new SvcError('FOLDER_INVALID', `cannot read ${file}`, { place: { file }, cause: error });
  }
  const added: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseEnv(text)))
    if (env[name] === undefined && value !== undefined) added[name] = value;
  return { file, added };
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve a server folder as an MCP server (Streamable HTTP)',
  usage: `Usage: svc serve [dir…] [--port <n>] [--host <addr>] [--watch]

Serves the folder at http://<host>:<port>/mcp and /mcp/<serverId>. Given several folders, serves each at
/mcp/<serverId> on the one port; each folder's upstream credential is its own, SVC_UPSTREAM_SECRET_<ID>
(and SVC_UPSTREAM_USER_<ID>; the server id in capitals, - as _) or SVC_UPSTREAM_SECRET in that folder's
.env; SVC_SYNC_URL needs a single folder.

  --port <n>      listen port (default MCP_RUNTIME_PORT or 3002)
  --host <addr>   listen address (default MCP_RUNTIME_HOST or 127.0.0.1)
  --watch         reload when the folder's files change (an invalid change keeps the last good config)

Environment (read at start; .env.example in the folder lists the ones it needs). The folder's
.env is read too: a variable set in the environment wins over the same one in .env.
${environmentHelp()}`,
  async run(argv, io) {
    // Every error, a usage error included, is printed here: in the bundle `svc serve` runs from
    // (scripts/bundle-serve.mjs) SvcError is the bundle's own class, which the CLI's fail would not know.
    let positionals: string[] = [];
    try {
      const parsed = parseCommandArgs('serve', argv, {
        port: { type: 'string' },
        host: { type: 'string' },
        watch: { type: 'boolean' },
      });
      const { values } = parsed;
      positionals = parsed.positionals;
      // The runtime's entry: the V8 boot tuning starts here, never on import (runtime/boot-heap.ts).
      holdBootHeap();
      if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
        throw new SvcError('USAGE', `svc serve: --port must be a number, not "${values.port}"`);
      }
      const flags = {
        ...(values.port !== undefined ? { MCP_RUNTIME_PORT: values.port } : {}),
        ...(values.host !== undefined ? { MCP_RUNTIME_HOST: values.host } : {}),
      };
      if (positionals.length > 1) return await serveSeveral(positionals, flags, values.watch ?? false, io);
      const dirArg = positionals[0];
      const folder = dirArg ?? io.env.SVC_FOLDER_PATH?.trim();
      const dotEnv = folder ? await readDotEnv(path.resolve(io.cwd, folder), io) : undefined;
      const env = parseRuntimeEnv({ ...dotEnv, ...io.env, ...flags });
      const running = await startRuntime({
        env,
        ...(dirArg ? { folderDir: path.resolve(io.cwd, dirArg) } : {}),
        watch: values.watch ?? false,
        // What svc validate found clean on this machine is not checked again (never trusted across versions).
        cleanSchemas: openSchemaCheckCache(cacheDir(io.env)),
      });
      io.stdout(`MCP server listening on ${running.url}  (Ctrl-C to stop)\n`);
      await waitForSignal();
      await running.close();
      return EXIT.ok;
    } catch (error) {
      // Several folders: the runtime's error names the folder and its own variables.
      if (positionals.length > 1) return fail(io, error);
      return fail(io, withDotEnvHint(error, positionals[0] ?? io.env.SVC_FOLDER_PATH));
    }
  },
};

/** The folder's .env (the variables not already set), said on stderr as it is read. */
async function readDotEnv(dir: string, io: CliIo): Promise<Record<string, string> | undefined> {
  const dotEnv = await folderDotEnv(dir, io.env);
  if (!dotEnv) return undefined;
  const names = Object.keys(dotEnv.added).sort();
  io.stderr(
    `svc serve: read ${path.relative(io.cwd, dotEnv.file) || '.env'}${names.length > 0 ? ` (${names.join(', ')})` : ' (every variable in it is already set)'}\n`,
  );
  return dotEnv.added;
}

const UPSTREAM_CREDENTIAL = new Set(['SVC_UPSTREAM_SECRET', 'SVC_UPSTREAM_USER']);

/**
 * Several folders on one port. Each folder's upstream credential is its own: SVC_UPSTREAM_SECRET_<ID>
 * in the environment, else SVC_UPSTREAM_SECRET in that folder's .env. The other variables of the
 * first folder's .env apply to the process, as with one folder.
 */
async function serveSeveral(
  dirs: string[],
  flags: Record<string, string>,
  watch: boolean,
  io: CliIo,
): Promise<number> {
  const folderDirs = dirs.map((p) => path.resolve(io.cwd, p));
  const folderVars: Record<string, Record<string, string>> = {};
  for (const dir of folderDirs) folderVars[dir] = (await readDotEnv(dir, io)) ?? {};
  const first = Object.entries(folderVars[folderDirs[0]!] ?? {}).filter(
    ([name]) => !UPSTREAM_CREDENTIAL.has(name),
  );
  const env = parseRuntimeEnv({ ...Object.fromEntries(first), ...io.env, ...flags });
  const several = await startRuntimes({ env, folderDirs, vars: io.env, folderVars, watch });
  for (const s of several.servers) io.stdout(`MCP server ${s.serverId} listening on ${s.url}\n`);
  io.stdout('(Ctrl-C to stop)\n');
  await waitForSignal();
  await several.close();
  return EXIT.ok;
}

/** A missing variable: say where svc serve looks for it (the environment, then the folder's .env). */
function withDotEnvHint(error: unknown, folder: string | undefined): unknown {
  if (
    !isSvcError(error) ||
    error.code !== 'CONFIG_MISSING_ENV' ||
    !error.place.field?.startsWith('SVC_UPSTREAM')
  )
    return error;
  const where = folder ? path.join(folder, '.env') : '.env in the folder';
  return new SvcError(
    error.code,
    `${error.message}. Set it in the environment or in ${where} (copy .env.example there and fill it in)`,
    { place: error.place, details: error.details, cause: error },
  );
}
