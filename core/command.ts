/**
 * The shape of a `svc` subcommand. Commands parse their own arguments (node:util parseArgs),
 * call the generator/runtime, and print through `io`; they return an exit code instead of
 * calling process.exit, so tests can run them in-process.
 */
export interface CliIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  cwd: string;
  env: Record<string, string | undefined>;
}

export interface Command {
  /** One or two words: "init", "tool add". */
  name: string;
  summary: string;
  /** Usage lines shown by `svc help <name>` and on a usage error. */
  usage: string;
  run(argv: string[], io: CliIo): Promise<number>;
}
