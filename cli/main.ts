#!/usr/bin/env node
/**
 * The `svc` command. The only place (with runtime/main.ts and the Action entry) that
 * touches process.exit: commands return exit codes.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliIo } from './command.js';
import { commands, findCommand } from './commands/index.js';
import { EXIT } from './exit-codes.js';
import { fail } from './fail.js';
import { quietEpipe } from './quiet-epipe.js';

export function helpText(): string {
  const width = Math.max(...commands.map((c) => c.name.length));
  const rows = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'svc: turn an HTTP API into an MCP server folder kept in git, and serve it.',
    '',
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...rows,
    '',
    'Run `svc help <command>` for the options of one command.',
    '',
  ].join('\n');
}

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  if (!first || first === 'help' || first === '--help' || first === '-h') {
    const topic = rest.length > 0 ? findCommand(rest) : undefined;
    io.stdout(topic ? `${topic.command.usage}\n` : helpText());
    return EXIT.ok;
  }
  if (first === '--version' || first === '-v') {
    io.stdout('svc 0.1.0\n');
    return EXIT.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    io.stderr(`error: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${helpText()}`);
    return EXIT.usage;
  }
  const args = argv.slice(found.words);
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(`${found.command.usage}\n`);
    return EXIT.ok;
  }
  try {
    return await found.command.run(args, io);
  } catch (error) {
    return fail(io, error);
  }
}

function isEntry(): boolean {
  const entry = process.argv[1];
  if (!entry) return false;
  try {
    return realpathSync(entry) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
}

if (isEntry()) {
  quietEpipe(process.stdout, process.stderr);
  const io: CliIo = {
    stdout: (t) => process.stdout.write(t),
    stderr: (t) => process.stderr.write(t),
    cwd: process.cwd(),
    env: process.env,
  };
  runCli(process.argv.slice(2), io).then(
    (code) => {
      // Long-running commands (serve, demo) resolve only when they are done serving.
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`internal error: ${String(error)}\n`);
      process.exit(EXIT.internal);
    },
  );
}
