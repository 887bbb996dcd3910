import { isSvcError } from './svc-error.js';
import type { CliIo } from './command.js';
import { EXIT, exitCodeFor } from './exit-codes.js';

/** Prints an error the way every command does and returns its exit code. */
export function fail(io: CliIo, error: unknown, options: { json?: boolean } = {}): number {
  if (isSvcError(error)) {
    if (options.json) io.stdout(`${JSON.stringify({ ok: false, error: error.toJSON() }, null, 2)}\n`);
    io.stderr(`error: ${error.describe()}\n`);
    return exitCodeFor(error.code);
  }
  const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.stderr(`internal error: ${message}\n`);
  return EXIT.internal;
}
