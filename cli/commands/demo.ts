import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { parseRuntimeEnv, startRuntime } from '../../runtime/index.js';
import type { Command } from '../../core/command.js';
import { prepareDemo } from '../demo/run-demo.js';
import { EXIT } from '../../core/exit-codes.js';
import { fail } from '../../core/fail.js';
import { parseCommandArgs } from '../../core/parse-args.js';
import { waitForSignal } from '../../core/wait-for-signal.js';

export const demoCommand: Command = {
  name: 'demo',
  summary: 'import the Bookshelf demo into a folder and serve it',
  usage: `Usage: svc demo [dir] [--port <n>] [--self-check]

Imports the Bookshelf demo API that ships with svc, with its sample content, into <dir>
(default ./demo), enables every item, starts the demo API on loopback and serves the folder.

  --port <n>       MCP port (default MCP_RUNTIME_PORT or 3002; 0 picks a free one)
  --self-check     connect with the MCP SDK client, list and call a tool, print, and exit`,
  async run(argv, io) {
    const { values, positionals } = parseCommandArgs('demo', argv, {
      port: { type: 'string' },
      'self-check': { type: 'boolean' },
    });
    try {
      const dir = path.resolve(io.cwd, positionals[0] ?? 'demo');
      const demo = await prepareDemo(dir);
      io.stdout(`Imported the Bookshelf demo into ${path.relative(io.cwd, dir) || '.'}\n${demo.checklist}`);
      io.stdout(`Demo upstream API on ${demo.api.url}\n`);
      const env = parseRuntimeEnv({
        ...io.env,
        ...(values.port !== undefined ? { MCP_RUNTIME_PORT: values.port } : {}),
      });
      const running = await startRuntime({ env, folderDir: dir });
      io.stdout(`MCP server: ${running.url}  (also ${running.url}/bookshelf)\n`);
      try {
        if (values['self-check']) {
          io.stdout(await selfCheck(running.url));
          return EXIT.ok;
        }
        io.stdout('Connect an MCP client to the URL above. Ctrl-C to stop.\n');
        await waitForSignal();
        return EXIT.ok;
      } finally {
        await running.close();
        await demo.api.close();
      }
    } catch (error) {
      return fail(io, error);
    }
  },
};

/** What a first-time user would try: list the tools and call one, with the official client. */
async function selfCheck(url: string): Promise<string> {
  const client = new Client({ name: 'svc-demo-self-check', version: '0.1.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  try {
    const { tools } = await client.listTools();
    const result = await client.callTool({ name: 'listBooks', arguments: { q: 'design' } });
    const text =
      (result.content as { type: string; text?: string }[]).find((c) => c.type === 'text')?.text ?? '';
    return `self-check: ${tools.length} tools (${tools.map((t) => t.name).join(', ')}); listBooks → ${text}\n`;
  } finally {
    await client.close();
  }
}
