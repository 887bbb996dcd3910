import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SvcError } from '../core/svc-error.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** Spelled out so that the emitted .d.ts can name it. */
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/**
 * node:util parseArgs with usage errors turned into SvcError('USAGE') that name the
 * command, so every command reports bad flags the same way.
 */
export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SvcError('USAGE', `svc ${command}: ${message}`);
  }
}

export function requirePositional(
  command: string,
  positionals: string[],
  index: number,
  what: string,
): string {
  const value = positionals[index];
  if (!value) throw new SvcError('USAGE', `svc ${command}: missing ${what}`);
  return value;
}
