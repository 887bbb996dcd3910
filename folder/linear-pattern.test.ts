import { describe, expect, it } from 'vitest';
import { compileToolSchema } from './check-tools.js';
import { linearPattern, linearRegExp } from './linear-pattern.js';

const EVIL = '^([a-zA-Z0-9]+\\s?)+$';

describe('linearPattern', () => {
  it('answers the pattern that froze the runtime at once, on any length', () => {
    const p = linearPattern(EVIL);
    if (!('test' in p)) throw new Error('expected a linear pattern');
    // 31 characters took JavaScript's RegExp over a minute; a million take RE2 milliseconds.
    expect(p.test(`${'a'.repeat(30)}!`)).toBe(false);
    expect(p.test(`${'a'.repeat(1_000_000)}!`)).toBe(false);
    expect(p.test('abc def')).toBe(true);
  });

  it('keeps the JavaScript meaning of \\s, \\S, . and \\u escapes', () => {
    const cases: [string, string[]][] = [
      ['^\\s$', [' ', '\t', '\v', '\u00a0', '\u2028', '\ufeff', 'a', '\u200b']],
      ['^\\S$', [' ', '\v', 'a', '\u00a0', '\u200b', '😀']],
      ['^[\\S\\s]$', [' ', 'a', '\n']],
      ['^[^\\s]+$', ['abc', 'a b', 'a\u3000b']],
      ['^.$', ['a', '\n', '\r', '\u2028', '\u2029', '😀']],
      ['^\\u00e9\\u{1F600}$', ['é😀', 'e😀']],
      ['^[\\w.-]+@\\d{2,}$', ['a.b-c@12', 'a b@12', 'é@12']],
      ['^\\p{L}+$', ['héllo', 'h3llo']],
      ['^(?<year>\\d{4})-\\d{2}$', ['2024-01', '24-01']],
      ['a\\/b', ['a/b', 'ab']],
    ];
    for (const [pattern, texts] of cases) {
      const p = linearPattern(pattern);
      if (!('test' in p)) throw new Error(`${pattern}: ${p.unsupported}`);
      for (const text of texts)
        expect(p.test(text), `${pattern} on ${JSON.stringify(text)}`).toBe(
          new RegExp(pattern, 'u').test(text),
        );
    }
  });

  it('names what it cannot run: backreferences and lookaround', () => {
    const unsupported = (pattern: string) => {
      const p = linearPattern(pattern);
      return 'unsupported' in p ? p.unsupported : 'supported';
    };
    expect(unsupported('^(a)\\1$')).toMatch(/backreference/);
    expect(unsupported('^(?<x>a)\\k<x>$')).toMatch(/named backreference/);
    expect(unsupported('^(?=a)')).toMatch(/lookahead/);
    expect(unsupported('^(?!a)')).toMatch(/lookahead/);
    expect(unsupported('(?<=a)b')).toMatch(/lookbehind/);
    expect(unsupported('(?<!a)b')).toMatch(/lookbehind/);
    expect(unsupported('[\\1]')).not.toBe('supported'); // RE2 refuses the escape as well
  });

  it('as Ajv engine: invalid patterns throw, unsupported ones match everything', () => {
    expect(() => linearRegExp('(', 'u')).toThrow();
    expect(linearRegExp('^(a)\\1$', 'u').test('zz')).toBe(true);
    expect(linearRegExp('^a$', 'u').toString()).not.toBe(linearRegExp('^b$', 'u').toString());
  });
});

describe('compileToolSchema with a super-linear pattern', () => {
  it('validates a 31-character argument promptly, and patternProperties too', () => {
    const schema = {
      type: 'object',
      properties: { name: { type: 'string', pattern: EVIL } },
      patternProperties: { '^(x+x+)+y$': { type: 'string' } },
    };
    const validate = compileToolSchema(schema);
    if ('error' in validate) throw new Error(validate.error);
    const started = process.hrtime.bigint();
    expect(validate({ name: `${'a'.repeat(30)}!` })).toBe(false);
    expect(validate({ name: 'hello world', ['x'.repeat(40)]: 1 })).toBe(true);
    expect(validate({ name: 'ok', ['x'.repeat(40) + 'y']: 1 })).toBe(false);
    // Not a timing assertion: the old engine would not return at all within the test's timeout.
    expect(Number(process.hrtime.bigint() - started)).toBeGreaterThan(0);
  });
});
