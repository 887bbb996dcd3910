/**
 * The registry of `svc` subcommands. Each entry names a command and loads its module only when
 * that command runs (or its help is asked for): `svc help` and `svc --version` then start without
 * the generator and the runtime. Adding a command is one entry here.
 */
import type { Command } from '../../core/command.js';

export interface CommandEntry {
  /** One or two words: "init", "tool add". */
  name: string;
  /** The line `svc help` shows; lower case, no final full stop. */
  summary: string;
  load: () => Promise<Command>;
}

/** Every subcommand, in the order `svc help` lists them. */
export const commands: CommandEntry[] = [
  {
    name: 'init',
    summary: 'create a server folder from an OpenAPI document or for a manual app',
    load: async () => (await import('./init.js')).initCommand,
  },
  {
    name: 'import',
    summary: 're-import the source into a server folder (keeps enabled flags and customizations)',
    load: async () => (await import('./import.js')).importCommand,
  },
  {
    name: 'verify',
    summary: 'verify ownership of an app-builder app (prints the token; --reset issues a new one)',
    load: async () => (await import('./verify.js')).verifyCommand,
  },
  {
    name: 'source set',
    summary: 'change the source of a server folder (checked first; a provider change needs --yes)',
    load: async () => (await import('./source.js')).sourceSetCommand,
  },
  {
    name: 'diff',
    summary: 'preview a re-import: the per-endpoint report, writing nothing',
    load: async () => (await import('./diff.js')).diffCommand,
  },
  {
    name: 'history',
    summary: 'list the imports recorded in a server folder',
    load: async () => (await import('./history.js')).historyCommand,
  },
  {
    name: 'tool add',
    summary: 'author a tool by hand (method, path, parameters)',
    load: async () => (await import('./tool-add.js')).toolAddCommand,
  },
  {
    name: 'tool list',
    summary: 'list the tools of a server folder (--grep to filter, --enabled / --disabled)',
    load: async () => (await import('./tool.js')).toolListCommand,
  },
  {
    name: 'tool enable',
    summary: 'enable tools by name or --grep (edits only the enabled line of each Tools/*.yaml)',
    load: async () => (await import('./tool.js')).toolEnableCommand,
  },
  {
    name: 'tool disable',
    summary: 'disable tools by name or --grep (edits only the enabled line of each Tools/*.yaml)',
    load: async () => (await import('./tool.js')).toolDisableCommand,
  },
  {
    name: 'validate',
    summary: 'check every file of a server folder against the schemas',
    load: async () => (await import('./validate.js')).validateCommand,
  },
  {
    name: 'publish',
    summary: 'mark the server published (export requires it)',
    load: async () => (await import('./publish.js')).publishCommand,
  },
  {
    name: 'unpublish',
    summary: 'mark the server unpublished',
    load: async () => (await import('./publish.js')).unpublishCommand,
  },
  {
    name: 'export',
    summary: 'export a published server as {server, files} JSON or as a folder',
    load: async () => (await import('./export.js')).exportCommand,
  },
  {
    name: 'serve',
    summary: 'serve a server folder as an MCP server (Streamable HTTP)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'worker build',
    summary: 'bundle a server folder into a Cloudflare Worker (worker.mjs, wrangler.toml, workerd.capnp)',
    load: async () => (await import('./worker.js')).workerBuildCommand,
  },
  {
    name: 'git',
    summary: 'git connections (GitHub App, GitLab OAuth): connect, list, disconnect, list repositories',
    load: async () => (await import('./git.js')).gitCommand,
  },
  {
    name: 'control',
    summary: 'run the control service (snapshots, deploy tokens, webhooks, import jobs) or make tokens',
    load: async () => (await import('./control.js')).controlCommand,
  },
  {
    name: 'demo',
    summary: 'import the Bookshelf demo into a folder and serve it',
    load: async () => (await import('./demo.js')).demoCommand,
  },
];

/** Finds the command named by the first one or two words of argv ("tool add"). */
export function findCommand(argv: readonly string[]): { entry: CommandEntry; words: number } | undefined {
  const two = argv.slice(0, 2).join(' ');
  const byTwo = commands.find((c) => c.name === two);
  if (byTwo) return { entry: byTwo, words: 2 };
  const byOne = commands.find((c) => c.name === argv[0]);
  return byOne ? { entry: byOne, words: 1 } : undefined;
}

/** The commands whose first word is `word`: `svc help tool` lists `tool add`. */
export function commandsUnder(word: string): CommandEntry[] {
  return commands.filter((c) => c.name.startsWith(`${word} `));
}
