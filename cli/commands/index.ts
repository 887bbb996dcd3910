import type { Command } from '../command.js';

/** Every subcommand, in the order `svc help` lists them. */
export const commands: Command[] = [];

/** Finds the command named by the first one or two words of argv ("tool add"). */
export function findCommand(argv: string[]): { command: Command; words: number } | undefined {
  const two = argv.slice(0, 2).join(' ');
  const byTwo = commands.find((c) => c.name === two);
  if (byTwo) return { command: byTwo, words: 2 };
  const byOne = commands.find((c) => c.name === argv[0]);
  return byOne ? { command: byOne, words: 1 } : undefined;
}
