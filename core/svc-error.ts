/**
 * The one error type of svc. Errors are values with a stable string code, a message for
 * people, and the place they concern (file, field, line, URL). Only the CLI maps codes
 * to exit codes and calls process.exit.
 */
export type SvcErrorCode =
  | 'SOURCE_UNREACHABLE'
  | 'SOURCE_NOT_FOUND'
  | 'SOURCE_TOO_LARGE'
  | 'SOURCE_NOT_JSON_OR_YAML'
  | 'SOURCE_YAML_BOMB'
  | 'SPEC_INVALID'
  | 'SPEC_EXTERNAL_REF'
  | 'CONTENT_INVALID'
  | 'CONTENT_PATH_UNSAFE'
  | 'FOLDER_INVALID'
  | 'FOLDER_NOT_FOUND'
  | 'FOLDER_EXISTS'
  | 'WRITE_FAILED'
  | 'PORT_IN_USE'
  | 'USAGE'
  | 'NOT_PUBLISHED'
  | 'NOT_VERIFIED'
  | 'PUBLISHED'
  | 'CONFIG_MISSING_ENV'
  | 'GIT_FAILED'
  | 'CONTROL_UNREACHABLE'
  | 'CONTROL_REFUSED'
  | 'CONTROL_TIMEOUT'
  | 'INTERNAL';

/** Where an error applies. Every field is optional; fill in what is known. */
export interface ErrorPlace {
  file?: string;
  /** JSON pointer or dotted path of the field inside the file. */
  field?: string;
  line?: number;
  column?: number;
  url?: string;
}

export class SvcError extends Error {
  override readonly name = 'SvcError';
  readonly code: SvcErrorCode;
  readonly place: ErrorPlace;
  /** Further problems of the same kind (for example every schema violation in a file). */
  readonly details: readonly string[];

  constructor(
    code: SvcErrorCode,
    message: string,
    options: { place?: ErrorPlace; details?: readonly string[]; cause?: unknown } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.place = options.place ?? {};
    this.details = options.details ?? [];
  }

  /** "file:line field (url)": the place, as people read it. Empty when unknown. */
  where(): string {
    const { file, line, column, field, url } = this.place;
    const parts: string[] = [];
    if (file) parts.push(line ? `${file}:${line}${column ? `:${column}` : ''}` : file);
    if (field) parts.push(`at ${field}`);
    if (url) parts.push(url);
    return parts.join(' ');
  }

  /**
   * One paragraph for a terminal or a log: code, place, message and details, each said once: the
   * place is left out when the message already names it (its file, field and URL), and so is a
   * detail the message already holds.
   */
  describe(): string {
    const where = this.saysWhere() ? '' : this.where();
    const head = `${this.code}: ${where ? `${where}: ` : ''}${this.message}`;
    const details = this.details.filter((d) => !this.message.includes(d));
    return [head, ...details.map((d) => `  - ${d}`)].join('\n');
  }

  /** Whether the message names every part of the place already (a line counts with its file). */
  private saysWhere(): boolean {
    const { file, field, url } = this.place;
    if (!file && !field && !url) return false;
    return [file, field, url].every(
      (part) => part === undefined || part === '' || this.message.includes(part),
    );
  }

  toJSON(): { code: SvcErrorCode; message: string; place: ErrorPlace; details: readonly string[] } {
    return { code: this.code, message: this.message, place: this.place, details: this.details };
  }
}

export function isSvcError(value: unknown): value is SvcError {
  return value instanceof SvcError;
}
