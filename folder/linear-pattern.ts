/**
 * `pattern` and `patternProperties` of tool schemas, matched in linear time. A pattern comes from
 * an API description, and JavaScript's backtracking engine takes exponential time on some of them
 * (`^([a-zA-Z0-9]+\s?)+$` against 31 characters blocked the event loop for over a minute), so Ajv
 * is given this engine (its `code.regExp` option) instead of `RegExp`: RE2's algorithm (re2js, in
 * plain JavaScript), whose time grows with the length of the text, never exponentially.
 *
 * The pattern keeps its JavaScript meaning (`u` flag, as Ajv compiles it): `\s`, `\S` and `.` are
 * spelled out as JavaScript defines them, since RE2's differ. What RE2 cannot run at all
 * (backreferences, lookahead, lookbehind, a few property names) is **not checked**: the pattern is
 * skipped, so every value passes it and the upstream API, which owns the rule, still validates the
 * value. `svc validate` warns about each such pattern, naming the tool file and field.
 */
import { RE2JS } from 're2js';

/** JavaScript's `\s` (ECMAScript WhiteSpace and LineTerminator), as RE2 class items. */
const JS_SPACE =
  '\\t\\n\\x{0B}\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}';
/** Everything else (JavaScript's `\S`), as RE2 class items usable inside another class. */
const JS_NON_SPACE =
  '\\x{0}-\\x{8}\\x{E}-\\x{1F}\\x{21}-\\x{9F}\\x{A1}-\\x{167F}\\x{1681}-\\x{1FFF}\\x{200B}-\\x{2027}' +
  '\\x{202A}-\\x{202E}\\x{2030}-\\x{205E}\\x{2060}-\\x{2FFF}\\x{3001}-\\x{FEFE}\\x{FF00}-\\x{10FFFF}';
/** JavaScript's `.` without the `s` flag: any character but a line terminator. */
const JS_DOT = '[^\\n\\r\\x{2028}\\x{2029}]';

export type LinearPattern = { test(text: string): boolean } | { unsupported: string };

/** The pattern with `\s`, `\S` and `.` in JavaScript's meaning, or why RE2 cannot run it. */
function toRe2Syntax(pattern: string): string | { unsupported: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      i++;
      if (next === 'k') return { unsupported: 'a named backreference (\\k<…>)' };
      if (/[1-9]/.test(next) && !inClass) return { unsupported: `a backreference (\\${next})` };
      if (next === 's') out += inClass ? JS_SPACE : `[${JS_SPACE}]`;
      else if (next === 'S') out += inClass ? JS_NON_SPACE : `[${JS_NON_SPACE}]`;
      else out += `\\${next}`;
    } else if (inClass) {
      if (c === ']') inClass = false;
      out += c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      // A `]` first in a class (after an optional `^`) is a literal in RE2, but ends `[]` in JavaScript.
      if (pattern[i + 1] === '^') out += pattern[++i];
      if (pattern[i + 1] === ']') return { unsupported: 'an empty character class ([] or [^])' };
    } else if (c === '.') out += JS_DOT;
    else if (c === '(' && pattern.startsWith('(?=', i)) return { unsupported: 'a lookahead (?=…)' };
    else if (c === '(' && pattern.startsWith('(?!', i)) return { unsupported: 'a lookahead (?!…)' };
    else if (c === '(' && pattern.startsWith('(?<=', i)) return { unsupported: 'a lookbehind (?<=…)' };
    else if (c === '(' && pattern.startsWith('(?<!', i)) return { unsupported: 'a lookbehind (?<!…)' };
    else out += c;
  }
  return out;
}

const MAX_CACHED = 2000;
const cache = new Map<string, LinearPattern>();

/**
 * The pattern compiled for linear-time matching, or why it cannot be (then it is not checked).
 * Call only with a pattern `new RegExp(pattern, 'u')` accepts.
 */
export function linearPattern(pattern: string): LinearPattern {
  const cached = cache.get(pattern);
  if (cached) return cached;
  let result: LinearPattern;
  const syntax = toRe2Syntax(pattern);
  if (typeof syntax !== 'string') result = syntax;
  else {
    try {
      const compiled = RE2JS.compile(RE2JS.translateRegExp(syntax));
      result = { test: (text: string) => compiled.test(text) };
    } catch (error) {
      result = {
        unsupported: `syntax the linear-time engine does not support (${(error as Error).message})`,
      };
    }
  }
  if (cache.size >= MAX_CACHED) cache.clear();
  cache.set(pattern, result);
  return result;
}

/**
 * Ajv's `code.regExp` engine. An invalid pattern throws as `RegExp` does; a pattern RE2 cannot
 * run matches everything (see above). `toString` keys Ajv's per-schema cache of patterns, so it
 * must differ between patterns.
 */
export const linearRegExp = Object.assign(
  (pattern: string, flags: string): { test(text: string): boolean; toString(): string } => {
    new RegExp(pattern, flags);
    const linear = linearPattern(pattern);
    const test = 'test' in linear ? linear.test : () => true;
    return { test, toString: () => `/${pattern}/${flags}` };
  },
  { code: 'linearRegExp' },
);
