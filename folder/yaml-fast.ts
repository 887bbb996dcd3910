/**
 * A fast reader for exactly the YAML style svc writes (generator/render/yaml-text.ts): block
 * maps and sequences with 2-space steps, plain-safe or JSON-quoted scalars, `|`/`|-` literals,
 * `{}`/`[]`, leading `#` comment lines. It returns FALLBACK for anything else (a hand edit with
 * a comment, a flow collection, an anchor, single quotes, a duplicate key…), and the caller
 * then uses the `yaml` package, which reads everything and reports errors with lines. The
 * `yaml` package is exact but slow (seconds for a 1,000-tool folder); this is not, and for the
 * inputs it accepts it gives the same value (tests compare the two).
 */
import { FLOAT, INT, isSafePlain } from './yaml-scalars.js';

export const FALLBACK: unique symbol = Symbol('yaml-fast-fallback');
type Result = unknown | typeof FALLBACK;

class Fallback extends Error {}

export function readYamlFast(text: string): Result {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let i = 0;
  while (i < lines.length && (lines[i] as string).startsWith('#')) i++;
  const reader = new Reader(lines, i);
  try {
    if (reader.pos >= lines.length) return FALLBACK;
    if (reader.indentAt(reader.pos) !== 0) return FALLBACK;
    const value = reader.map(0);
    return reader.pos === lines.length ? value : FALLBACK;
  } catch (e) {
    if (e instanceof Fallback) return FALLBACK;
    throw e;
  }
}

// A double-quoted key at a given column (sticky: no slice of the line to match it).
const QUOTED_KEY = /("(?:[^"\\]|\\.)*"):(?: |$)/y;

/**
 * Where the value after the key found by keyAt starts in its line (module state, not a tuple:
 * keyAt runs for every line of every tool file and an allocation per line showed in profiles).
 */
let valueStart = 0;

class Reader {
  constructor(
    readonly lines: string[],
    public pos: number,
  ) {}

  indentAt(i: number): number {
    const line = this.lines[i] as string;
    let n = 0;
    while (line.charCodeAt(n) === 32) n++;
    return n;
  }

  /**
   * A map whose keys sit at column `indent`; the first line may be virtual (after "- "): then
   * `first` is that line and `firstStart` the column of its key.
   */
  map(indent: number, first?: string, firstStart = 0): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let line = first;
    let start = firstStart;
    for (;;) {
      if (line === undefined) {
        if (this.pos >= this.lines.length) break;
        const ind = this.indentAt(this.pos);
        if (ind < indent) break;
        if (ind > indent) throw new Fallback();
        line = this.lines[this.pos] as string;
        start = indent;
      }
      const k = keyAt(line, start);
      if (k === undefined || Object.hasOwn(out, k)) throw new Fallback();
      const after = valueStart >= line.length ? '' : line.slice(valueStart);
      this.pos++;
      const value = this.value(after, indent);
      // `out.__proto__ = v` would set the prototype (a tool file's `__proto__: {enabled: true}` made every
      // lookup of `enabled` true); like `yaml`, make it an own key. Other keys (constructor…) assign as own.
      if (k === '__proto__')
        Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      else out[k] = value;
      line = undefined;
    }
    return out;
  }

  /** The value after "key:" (`after` is what follows the colon and its space). */
  value(after: string, indent: number): unknown {
    if (after === '') {
      if (this.pos >= this.lines.length) throw new Fallback();
      const ind = this.indentAt(this.pos);
      if (ind !== indent + 2) throw new Fallback();
      const line = this.lines[this.pos] as string;
      return isItem(line, ind) ? this.seq(ind) : this.map(ind);
    }
    if (after === '|' || after === '|-' || after === '|2' || after === '|2-')
      return this.literal(after, indent + 2);
    return scalarOf(after);
  }

  seq(indent: number): unknown[] {
    const out: unknown[] = [];
    for (;;) {
      if (this.pos >= this.lines.length) break;
      const ind = this.indentAt(this.pos);
      if (ind < indent) break;
      if (ind > indent) throw new Fallback();
      const line = this.lines[this.pos] as string;
      if (!line.startsWith('- ', indent)) {
        if (line.length !== indent + 1 || line.charCodeAt(indent) !== 45 /* - */) break;
        throw new Fallback();
      }
      const start = indent + 2;
      // "- - x" (a nested sequence) or "- key: v" (a map) start a collection two columns in.
      if (line.startsWith('- ', start)) {
        this.lines[this.pos] = `${' '.repeat(start)}${line.slice(start)}`;
        out.push(this.seq(start));
      } else if (keyAt(line, start) !== undefined) {
        out.push(this.map(start, line, start));
      } else {
        this.pos++;
        out.push(scalarOf(line.slice(start)));
      }
    }
    return out;
  }

  literal(header: string, contentIndent: number): string {
    const explicit = header.includes('2');
    const lines: string[] = [];
    let seenText = false;
    while (this.pos < this.lines.length) {
      const line = this.lines[this.pos] as string;
      if (line === '') {
        lines.push('');
        this.pos++;
        continue;
      }
      const ind = this.indentAt(this.pos);
      if (ind < contentIndent) {
        if (line.trim() === '') throw new Fallback();
        break;
      }
      // Without an indicator YAML takes the indentation of the first line: it must be ours.
      if (!explicit && !seenText && ind !== contentIndent) throw new Fallback();
      seenText = true;
      const last = line.charCodeAt(line.length - 1);
      if (last === 32 || last === 9 || line.includes('\r')) throw new Fallback();
      lines.push(line.slice(contentIndent));
      this.pos++;
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    if (lines.length === 0) throw new Fallback();
    const body = lines.join('\n');
    return header.endsWith('-') ? body : `${body}\n`;
  }
}

/** Whether the text at column `at` is a sequence item: "-" alone or "- …". */
function isItem(line: string, at: number): boolean {
  return line.startsWith('- ', at) || (line.length === at + 1 && line.charCodeAt(at) === 45);
}

/**
 * The key of "key: value" (or "key:") starting at column `start` of `line`, undefined when the
 * text there is no key svc writes; sets valueStart. A plain key runs to the first colon, which
 * must end the line or be followed by a space; it may not start with white space (YAML's is
 * space and tab only: U+00A0 is plain), a quote or `#`, and isSafePlain has the last word.
 */
function keyAt(line: string, start: number): string | undefined {
  const c0 = line.charCodeAt(start);
  if (c0 === 34 /* " */) {
    QUOTED_KEY.lastIndex = start;
    const quoted = QUOTED_KEY.exec(line);
    if (!quoted) return undefined;
    valueStart = start + (quoted[0] as string).length;
    return parseQuoted(quoted[1] as string);
  }
  // Most sequence items are plain scalars with no colon at all.
  const colon = line.indexOf(':', start);
  if (colon <= start || c0 === 32 || c0 === 9 || c0 === 39 /* ' */ || c0 === 35 /* # */) return undefined;
  if (colon + 1 < line.length && line.charCodeAt(colon + 1) !== 32) return undefined;
  const key = line.slice(start, colon);
  if (!isSafePlain(key)) return undefined;
  valueStart = colon + 2;
  return key;
}

function parseQuoted(token: string): string {
  try {
    const v = JSON.parse(token);
    if (typeof v === 'string') return v;
  } catch {
    // not JSON: let the yaml package decide
  }
  throw new Fallback();
}

function scalarOf(s: string): unknown {
  if (s === '{}') return {};
  if (s === '[]') return [];
  if (s === 'true') return true;
  if (s === 'false') return false;
  if (s === 'null') return null;
  const c0 = s.charCodeAt(0);
  if (c0 === 34 /* " */) return parseQuoted(s);
  // INT and FLOAT both start with "-" or a digit: most values are words and skip both.
  if ((c0 === 45 || (c0 >= 48 && c0 <= 57)) && (INT.test(s) || FLOAT.test(s))) return Number(s);
  if (isSafePlain(s)) return s;
  throw new Fallback();
}
