#!/usr/bin/env node
/**
 * The `svc` command. The only place (with runtime/main.ts and the Action entry) that
 * touches process.exit: commands return exit codes. A command's module (and with it the
 * generator or the runtime) is loaded only when that command runs, so `svc help` starts fast.
 */
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../core/command.js';
import { type CommandEntry, commands, commandsUnder, findCommand } from './commands/index.js';
import { didYouMean } from '../core/closest-words.js';
import { enableCompileCache } from '../core/compile-cache.js';
import { EXIT } from '../core/exit-codes.js';
import { fail } from '../core/fail.js';
import { quietEpipe } from './quiet-epipe.js';
import { terminalSafe } from './terminal-text.js';
import { packageVersion } from '../core/package-root.js';

function commandRows(entries: readonly CommandEntry[]): string[] {
  const width = Math.max(...entries.map((c) => c.name.length));
  return entries.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
}

export function helpText(): string {
  return [
    'svc: turn an HTTP API into an MCP server folder kept in git, and serve it.',
    '',
    'Usage: svc <command> [options]',
    '',
    'Commands:',
    ...commandRows(commands),
    '',
    'Run `svc help <command>` for the options of one command, `svc --version` for the version.',
    '',
  ].join('\n');
}

const GLOBAL_FLAGS = ['--help', '--version'];

/** "unknown command" with the closest command names, for a typo in argv's first words. */
function unknownCommand(io: CliIo, words: readonly string[]): number {
  const typed = words.join(' ');
  const names = commands.map((c) => c.name);
  const firstWords = [...new Set(names.map((n) => n.split(' ')[0] ?? n))];
  const known = typed.startsWith('-') ? GLOBAL_FLAGS : [...new Set([...names, ...firstWords])];
  const hint = didYouMean(
    typed,
    known.filter((k) => k !== typed),
    (n) => `svc ${n}`,
  );
  io.stderr(`error: unknown command "${typed}".${hint} Run \`svc help\` for the list of commands.\n`);
  return EXIT.usage;
}

async function printHelp(io: CliIo, topic: readonly string[]): Promise<number> {
  if (topic.length === 0) {
    io.stdout(helpText());
    return EXIT.ok;
  }
  const found = findCommand(topic);
  if (found) {
    io.stdout(`${(await found.entry.load()).usage}\n`);
    return EXIT.ok;
  }
  const group = commandsUnder(topic[0] ?? '');
  if (group.length > 0) {
    io.stdout(`Commands under "${topic[0]}":\n${commandRows(group).join('\n')}\n`);
    return EXIT.ok;
  }
  return unknownCommand(io, topic.slice(0, 1));
}

export async function runCli(argv: string[], rawIo: CliIo): Promise<number> {
  // Folder content (names, descriptions, paths) reaches the terminal: never as control sequences.
  const io: CliIo = {
    ...rawIo,
    stdout: (t) => rawIo.stdout(terminalSafe(t)),
    stderr: (t) => rawIo.stderr(terminalSafe(t)),
  };
  const [first, ...rest] = argv;
  if (!first || first === 'help' || first === '--help' || first === '-h') return printHelp(io, rest);
  if (first === '--version' || first === '-v') {
    io.stdout(`svc ${packageVersion()}\n`);
    return EXIT.ok;
  }
  const found = findCommand(argv);
  if (!found) {
    // `svc tool` alone: show what the group holds instead of a bare "unknown command".
    if (commandsUnder(first).length > 0 && (rest.length === 0 || rest[0]?.startsWith('-'))) {
      await printHelp(io, [first]);
      return rest[0] === '--help' || rest[0] === '-h' ? EXIT.ok : EXIT.usage;
    }
    // A group's first word with an unknown second one ("tool ad") is judged as two words.
    return unknownCommand(io, commandsUnder(first).length > 0 ? argv.slice(0, 2) : [first]);
  }
  try {
    const command = await found.entry.load();
    const args = argv.slice(found.words);
    if (args.includes('--help') || args.includes('-h')) {
      io.stdout(`${command.usage}\n`);
      return EXIT.ok;
    }
    return await command.run(args, io);
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
  // Before the command's module (and with it the generator or the runtime) is imported.
  enableCompileCache();
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
      process.stderr.write(terminalSafe(`internal error: ${String(error)}\n`));
      process.exit(EXIT.internal);
    },
  );
}
