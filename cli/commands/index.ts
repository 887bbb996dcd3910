import type { Command } from '../command.js';
import { controlCommand } from './control.js';
import { demoCommand } from './demo.js';
import { diffCommand } from './diff.js';
import { exportCommand } from './export.js';
import { historyCommand } from './history.js';
import { importCommand } from './import.js';
import { initCommand } from './init.js';
import { publishCommand, unpublishCommand } from './publish.js';
import { serveCommand } from './serve.js';
import { toolAddCommand } from './tool-add.js';
import { validateCommand } from './validate.js';

/** Every subcommand, in the order `svc help` lists them. */
export const commands: Command[] = [
  initCommand,
  importCommand,
  diffCommand,
  historyCommand,
  toolAddCommand,
  validateCommand,
  publishCommand,
  unpublishCommand,
  exportCommand,
  serveCommand,
  controlCommand,
  demoCommand,
];

/** Finds the command named by the first one or two words of argv ("tool add"). */
export function findCommand(argv: string[]): { command: Command; words: number } | undefined {
  const two = argv.slice(0, 2).join(' ');
  const byTwo = commands.find((c) => c.name === two);
  if (byTwo) return { command: byTwo, words: 2 };
  const byOne = commands.find((c) => c.name === argv[0]);
  return byOne ? { command: byOne, words: 1 } : undefined;
}
