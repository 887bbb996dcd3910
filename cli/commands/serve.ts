import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { parseRuntimeEnv, startRuntime } from '../../runtime/index.js';
import type { Command } from '../command.js';
import { EXIT } from '../exit-codes.js';
import { fail } from '../fail.js';
import { parseCommandArgs } from '../parse-args.js';
import { waitForSignal } from '../wait-for-signal.js';

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve a server folder as an MCP server (Streamable HTTP)',
  usage: `Usage: svc serve [dir] [--port <n>] [--host <addr>] [--watch]

Serves the folder at http://<host>:<port>/mcp and /mcp/<serverId>. Without <dir>, serves
SVC_FOLDER_PATH, or the deprecated single-file bundle at SVC_BUNDLE_PATH.

  --port <n>      listen port (default MCP_RUNTIME_PORT or 3002)
  --host <addr>   listen address (default 127.0.0.1)
  --watch         reload when the folder's files change (an invalid change keeps the last good config)

Environment: SVC_UPSTREAM_SECRET (api_key, bearer, basic), SVC_UPSTREAM_USER (basic), MCP_ALLOWED_ORIGINS (comma-separated),
MCP_RUNTIME_PUBLIC_URL, SVC_SYNC_URL, SVC_DEPLOY_TOKEN, SVC_SYNC_INTERVAL.`,
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
