/**
 * The scalar rules shared by svc's YAML writer and its fast reader. A string is written plain
 * only when every YAML reader (1.1 or 1.2) reads it back as the same string; everything else is
 * double-quoted with JSON escapes, which YAML's double-quoted style reads identically.
 */

// Words that YAML 1.2 core or YAML 1.1 readers resolve to booleans or null.
const RESERVED =
  /^(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|y|Y|yes|Yes|YES|n|N|no|No|NO|on|On|ON|off|Off|OFF)$/;

/**
 * Whether `s` can be written as a plain scalar (in block context, as a key or a value). The
 * first character is a letter, "_", "$" or "/" (never an indicator, a digit, a sign or a dot,
 * so no number, .inf or .nan); the rest is printable (no tab, no control character, no
 * surrogate, no U+2028/2029/FEFF), never ": " or " #", and it does not end in ":" or a space.
 * One pass over the characters: this runs for every key and value of every tool file.
 */
export function isSafePlain(s: string): boolean {
  const n = s.length;
  if (n === 0) return false;
  const c0 = s.charCodeAt(0);
  if (!((c0 >= 65 && c0 <= 90) || (c0 >= 97 && c0 <= 122) || c0 === 95 || c0 === 36 || c0 === 47))
    return false;
  for (let i = 1; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c <= 0x7e) {
      if (c === 58 && (i === n - 1 || s.charCodeAt(i + 1) === 32)) return false;
      if (c === 35 && s.charCodeAt(i - 1) === 32) return false;
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
