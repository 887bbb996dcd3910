import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { parseRuntimeEnv, RUNTIME_ENV_VARIABLES, startRuntime } from '../../runtime/index.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { parseCommandArgs } from '../parse-args.js';
import { waitForSignal } from '../wait-for-signal.js';

/** One line per variable the runtime reads: a variable added to RUNTIME_ENV_VARIABLES fails the type-check until it has one. */
const VARIABLE_HELP: Record<(typeof RUNTIME_ENV_VARIABLES)[number], string> = {
  SVC_FOLDER_PATH: 'the server folder to serve when <dir> is not given',
  SVC_BUNDLE_PATH: 'a single-file {server, files} export to serve instead (deprecated)',
  FLOWCP_BUNDLE_PATH: 'former name of SVC_BUNDLE_PATH (deprecated)',
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
};

function environmentHelp(): string {
  const width = Math.max(...RUNTIME_ENV_VARIABLES.map((v) => v.length));
  return RUNTIME_ENV_VARIABLES.map((v) => `  ${v.padEnd(width)}  ${VARIABLE_HELP[v] ?? ''}`.trimEnd()).join(
    '\n',
  );
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve a server folder as an MCP server (Streamable HTTP)',
  usage: `Usage: svc serve [dir] [--port <n>] [--host <addr>] [--watch]

Serves the folder at http://<host>:<port>/mcp and /mcp/<serverId>.

  --port <n>      listen port (default MCP_RUNTIME_PORT or 3002)
  --host <addr>   listen address (default MCP_RUNTIME_HOST or 127.0.0.1)
  --watch         reload when the folder's files change (an invalid change keeps the last good config)

Environment (read at start; .env.example in the folder lists the ones it needs):
${environmentHelp()}`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('serve', argv, {
      port: { type: 'string' },
      host: { type: 'string' },
      watch: { type: 'boolean' },
    });
    try {
      if (values.port !== undefined && !/^\d{1,5}$/.test(values.port)) {
        throw new SvcError('USAGE', `svc serve: --port must be a number, not "${values.port}"`);
      }
      const env = parseRuntimeEnv({
        ...io.env,
        ...(values.port !== undefined ? { MCP_RUNTIME_PORT: values.port } : {}),
        ...(values.host !== undefined ? { MCP_RUNTIME_HOST: values.host } : {}),
      });
      const dirArg = positionals[0];
      const running = await startRuntime({
        env,
        ...(dirArg ? { folderDir: path.resolve(io.cwd, dirArg) } : {}),
        watch: values.watch ?? false,
      });
      io.stdout(`MCP server listening on ${running.url}  (Ctrl-C to stop)\n`);
      await waitForSignal();
      await running.close();
      return EXIT.ok;
    } catch (error) {
      return fail(io, error);
    }
  },
};
