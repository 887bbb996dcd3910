/**
 * Whether a text is exactly `JSON.stringify(value, null, 2)`, found without making that string.
 * Most large documents are published as 2-space JSON already (GitHub's 13 MB): Tools/openapi.json
 * is then the text and a newline, and the import holds one copy of the document, not two.
 *
 * The value is walked down to PIECE_DEPTH by hand, writing the brackets, keys and separators
 * JSON.stringify writes; below that each piece is stringified on its own (indented to its place)
 * and compared where it must stand. The pieces are small and short-lived, so nothing the size of
 * the document is allocated; the first difference ends the walk.
 */

/** Depth at which values are compared as whole stringified pieces (a path item, a component schema). */
const PIECE_DEPTH = 2;

const indents: string[] = [];

/** A newline and the indentation of a line at `depth`. */
function newline(depth: number): string {
  let text = indents[depth];
  if (text === undefined) {
    text = `\n${'  '.repeat(depth)}`;
    indents[depth] = text;
  }
  return text;
}

export function isPrettyJsonOf(value: unknown, text: string): boolean {
  return prettyEnd(value, text, 0, 0) === text.length;
}

/** Where the value's pretty JSON at `depth` ends when the text has it at `pos`, else -1. */
function prettyEnd(value: unknown, text: string, pos: number, depth: number): number {
  if (depth >= PIECE_DEPTH || value === null || typeof value !== 'object')
    return pieceEnd(value, text, pos, depth);
  // JSON.stringify calls toJSON where there is one; such values are compared as pieces.
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return pieceEnd(value, text, pos, depth);
  const inner = newline(depth + 1);
  if (Array.isArray(value)) {
    if (value.length === 0) return text.startsWith('[]', pos) ? pos + 2 : -1;
    let at = pos;
    for (let i = 0; i < value.length; i++) {
      const open = i === 0 ? '[' : ',';
      if (text[at] !== open || !text.startsWith(inner, at + 1)) return -1;
      at = itemEnd(value[i], text, at + 1 + inner.length, depth + 1, true);
      if (at < 0) return -1;
    }
    return closeEnd(text, at, depth, ']');
  }
  const record = value as Record<string, unknown>;
  let at = pos;
  let first = true;
  for (const key of Object.keys(record)) {
    const member = record[key];
    if (member === undefined || typeof member === 'function' || typeof member === 'symbol') continue;
    if (text[at] !== (first ? '{' : ',') || !text.startsWith(inner, at + 1)) return -1;
    at += 1 + inner.length;
    const name = `${JSON.stringify(key)}: `;
    if (!text.startsWith(name, at)) return -1;
    at = itemEnd(member, text, at + name.length, depth + 1, false);
    if (at < 0) return -1;
    first = false;
  }
  if (first) return text.startsWith('{}', pos) ? pos + 2 : -1;
  return closeEnd(text, at, depth, '}');
}

/** An array item or a member's value; an array writes null for what JSON cannot hold. */
function itemEnd(value: unknown, text: string, pos: number, depth: number, inArray: boolean): number {
  if (inArray && (value === undefined || typeof value === 'function' || typeof value === 'symbol'))
    return text.startsWith('null', pos) ? pos + 4 : -1;
  return prettyEnd(value, text, pos, depth);
}

function closeEnd(text: string, pos: number, depth: number, bracket: string): number {
  const close = newline(depth);
  if (!text.startsWith(close, pos) || text[pos + close.length] !== bracket) return -1;
  return pos + close.length + 1;
}

function pieceEnd(value: unknown, text: string, pos: number, depth: number): number {
  if (depth === 0) {
    const whole = JSON.stringify(value, null, 2);
    return whole !== undefined && text.startsWith(whole, pos) ? pos + whole.length : -1;
  }
  // Stringified inside `depth` arrays, the value is written with the indentation of its place;
  // it is compared as a slice of that (no copy), between the wrapping brackets.
  let wrapped: unknown = value;
  for (let i = 0; i < depth; i++) wrapped = [wrapped];
  const whole = JSON.stringify(wrapped, null, 2);
  const open = openingOf(depth);
  const piece = whole.slice(open.length, whole.length - closingOf(depth).length);
  return text.startsWith(piece, pos) ? pos + piece.length : -1;
}

const openings: string[] = [];
const closings: string[] = [];

/** What JSON.stringify writes before a value wrapped in `depth` arrays: `[`, a newline and indentation, each. */
function openingOf(depth: number): string {
  let text = openings[depth];
  if (text === undefined) {
    text = '';
    for (let i = 1; i <= depth; i++) text += `[${newline(i)}`;
    openings[depth] = text;
  }
  return text;
}

/** And after it: a newline, the outer indentation and `]`, each. */
function closingOf(depth: number): string {
  let text = closings[depth];
  if (text === undefined) {
    text = '';
    for (let i = depth - 1; i >= 0; i--) text += `${newline(i)}]`;
    closings[depth] = text;
  }
  return text;
}
