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

const QUOTED_KEY = /^("(?:[^"\\]|\\.)*"):(?: |$)/;
// YAML's white space is space and tab only: a key starting with U+00A0 is plain (isSafePlain has the last word).
const PLAIN_KEY = /^([^ \t"'#][^:]*?):(?: |$)/;

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

  /** A map whose keys sit at column `indent`; the first line may be virtual (after "- "). */
  map(indent: number, firstRest?: string): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    let rest = firstRest;
    for (;;) {
      if (rest === undefined) {
        if (this.pos >= this.lines.length) break;
        const ind = this.indentAt(this.pos);
        if (ind < indent) break;
        if (ind > indent) throw new Fallback();
        rest = (this.lines[this.pos] as string).slice(indent);
      }
      const [k, after] = splitKey(rest);
      if (Object.hasOwn(out, k)) throw new Fallback();
      this.pos++;
      const value = this.value(after, indent);
      // `out.__proto__ = v` would set the prototype (a tool file's `__proto__: {enabled: true}` made every
      // lookup of `enabled` true); like `yaml`, make it an own key. Other keys (constructor…) assign as own.
      if (k === '__proto__')
        Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true });
      else out[k] = value;
      rest = undefined;
    }
    return out;
  }

  /** The value after "key:" (`after` is what follows the colon and its space). */
  value(after: string, indent: number): unknown {
    if (after === '') {
      if (this.pos >= this.lines.length) throw new Fallback();
      const ind = this.indentAt(this.pos);
      if (ind !== indent + 2) throw new Fallback();
      const line = (this.lines[this.pos] as string).slice(ind);
      return line === '-' || line.startsWith('- ') ? this.seq(ind) : this.map(ind);
    }
    if (after === '|' || after === '|-' || after === '|2' || after === '|2-')
      return this.literal(after, indent + 2);
    return scalarOf(after);
  }

  seq(indent: number, firstRest?: string): unknown[] {
    const out: unknown[] = [];
    let rest = firstRest;
    for (;;) {
      if (rest === undefined) {
        if (this.pos >= this.lines.length) break;
        const ind = this.indentAt(this.pos);
        if (ind < indent) break;
        if (ind > indent) throw new Fallback();
        const line = (this.lines[this.pos] as string).slice(indent);
        if (!line.startsWith('- ')) {
          if (ind === indent && line !== '-') break;
          throw new Fallback();
        }
        rest = line.slice(2);
      }
      // "- - x" (a nested sequence) or "- key: v" (a map) start a collection two columns in.
      if (rest.startsWith('- ')) {
        this.lines[this.pos] = `${' '.repeat(indent + 2)}${rest}`;
        out.push(this.seq(indent + 2));
      } else if (startsWithKey(rest)) {
        out.push(this.map(indent + 2, rest));
      } else {
        this.pos++;
        out.push(scalarOf(rest));
      }
      rest = undefined;
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
      if (/[ \t]$/.test(line) || line.includes('\r')) throw new Fallback();
      lines.push(line.slice(contentIndent));
      this.pos++;
    }
    while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    if (lines.length === 0) throw new Fallback();
    const body = lines.join('\n');
    return header.endsWith('-') ? body : `${body}\n`;
  }
}

function startsWithKey(rest: string): boolean {
  return keyOf(rest) !== undefined;
}

function splitKey(rest: string): [string, string] {
  const found = keyOf(rest);
  if (!found) throw new Fallback();
  return found;
}

// Cheap checks first: most sequence items are plain scalars with no colon at all.
function keyOf(rest: string): [string, string] | undefined {
  if (rest.charCodeAt(0) === 34 /* " */) {
    const quoted = QUOTED_KEY.exec(rest);
    if (!quoted) return undefined;
    return [parseQuoted(quoted[1] as string), rest.slice((quoted[0] as string).length)];
  }
  if (!rest.includes(':')) return undefined;
  const plain = PLAIN_KEY.exec(rest);
  if (!plain || !isSafePlain(plain[1] as string)) return undefined;
  return [plain[1] as string, rest.slice((plain[0] as string).length)];
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
  if (s.startsWith('"')) return parseQuoted(s);
  if (INT.test(s) || FLOAT.test(s)) return Number(s);
  if (isSafePlain(s)) return s;
  throw new Fallback();
}
