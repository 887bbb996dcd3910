import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SvcError } from './svc-error.js';
import { didYouMean } from './closest-words.js';

type Options = NonNullable<ParseArgsConfig['options']>;
/** Spelled out so that the emitted .d.ts can name it. */
type Parsed<O extends Options> = ReturnType<
  typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>
>;

/** parseArgs' own message for an unknown flag, which also advises `--`: replaced with a hint. */
function unknownOption(command: string, message: string, options: Options): string | undefined {
  const typed = /^Unknown option '([^']+)'/.exec(message)?.[1];
  if (typed === undefined) return undefined;
  const flags = Object.keys(options).map((name) => `--${name}`);
  const hint = didYouMean(typed.replace(/=.*$/, ''), flags);
  return `svc ${command}: unknown option ${typed}.${hint} Run \`svc help ${command}\` for its options.`;
}

/**
 * node:util parseArgs with usage errors turned into SvcError('USAGE') that name the
 * command, so every command reports bad flags the same way.
 */
export function parseCommandArgs<O extends Options>(command: string, argv: string[], options: O): Parsed<O> {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new SvcError('USAGE', unknownOption(command, message, options) ?? `svc ${command}: ${message}`);
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
