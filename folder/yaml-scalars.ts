/**
 * The scalar rules shared by svc's YAML writer and its fast reader. A string is written plain
 * only when every YAML reader (1.1 or 1.2) reads it back as the same string; everything else is
 * double-quoted with JSON escapes, which YAML's double-quoted style reads identically.
 */

// Words that YAML 1.2 core or YAML 1.1 readers resolve to booleans or null.
const RESERVED =
  /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;
// What a YAML 1.1 or 1.2 reader could take for a number or a date: only digits and number
// punctuation, a 0x/0o/0b prefix, .inf/.nan, or a leading yyyy-m date. Deliberately broad.
const NUMBER_LIKE = /^[-+]?\.?[0-9][0-9_.:eE+-]*$|^[-+]?0[xXoObB]|^[-+]?\.(?:inf|nan)$|^[0-9]{4}-[0-9]/i;

/**
 * Whether `s` can be written as a plain scalar (in block context, as a key or a value), read
 * back as the same string by any YAML 1.1 or 1.2 reader. Not when it starts with an indicator
 * or a space, looks like a number, a date, a boolean or null, contains ": " or " #", ends in
 * ":" or a space, or holds a tab, a control character, a surrogate or U+2028/2029/FEFF.
 * One pass over the characters: this runs for every key and value of every tool file.
 */
export function isSafePlain(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  const c0 = s.charCodeAt(0);
  // - ? : , [ ] { } # & * ! | > ' " % @ ` ~ = < and space: indicators, or special alone (~ = <<).
  if (c0 <= 0x20 || '-?:,[]{}#&*!|>\'"%@`~=<'.includes(s[0] as string)) return false;
  if (c0 === 46 && s.startsWith('...')) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      if (c === 58 && (i === n - 1 || s.charCodeAt(i + 1) === 32)) return false;
      if (c === 35 && i > 0 && s.charCodeAt(i - 1) === 32) return false;
      continue;
    }
    if (
      c < 0xa0 ||
      (c >= 0xd800 && c <= 0xdfff) ||
      c === 0x2028 ||
      c === 0x2029 ||
      c === 0xfeff ||
      c >= 0xfffe
    ) {
      return false;
    }
  }
  if (s.charCodeAt(n - 1) === 32) return false;
  if (c0 < 0x80 && !((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122)) && NUMBER_LIKE.test(s)) return false;
  return n > 5 || !RESERVED.test(s);
}

/** JSON's string syntax, with the characters YAML does not print escaped as well. */
export function doubleQuoted(s: string): string {
  return JSON.stringify(s).replace(
    /[\x7F-\x9F\u2028\u2029\uFEFF]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export const INT = /^-?(?:0|[1-9][0-9]*)$/;
export const FLOAT = /^-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?$/;
