import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isPrettyJsonOf } from './pretty-json-text.js';

const pretty = (v: unknown) => JSON.stringify(v, null, 2);

describe('isPrettyJsonOf', () => {
  it('is true exactly when the text is JSON.stringify(value, null, 2), for any JSON value and texts near it', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (value, other) => {
        const texts = [
          pretty(value),
          JSON.stringify(value),
          JSON.stringify(value, null, 4),
          `${pretty(value)}\n`,
          ` ${pretty(value)}`,
          pretty(value).slice(0, -1),
          pretty(other),
          pretty([value]),
          pretty({ a: value }),
        ];
        for (const text of texts) expect(isPrettyJsonOf(value, text)).toBe(text === pretty(value));
      }),
      { numRuns: 300 },
    );
  });

  it('compares deep values, key order, escapes and numbers as JSON writes them', () => {
    const value = {
      openapi: '3.0.3',
      paths: { '/a': { get: { responses: { '200': { description: 'é "q"\u2028', content: {} } } } } },
      list: [1, -0, 1e21, 0.1, [], {}, [[{ x: [null, true] }]]],
      '': 'empty key',
    };
    const text = pretty(value);
    expect(isPrettyJsonOf(value, text)).toBe(true);
    expect(isPrettyJsonOf(value, text.replace('"200"', '"201"'))).toBe(false);
    expect(isPrettyJsonOf(value, text.replace('true', 'false'))).toBe(false);
    expect(isPrettyJsonOf(value, text.replace('\n      "get"', '\n     "get"'))).toBe(false);
    expect(isPrettyJsonOf({ b: 1, a: 2 }, pretty({ a: 2, b: 1 }))).toBe(false);
  });

  it('writes arrays with holes and members that JSON leaves out as JSON.stringify does', () => {
    const value = { a: [undefined, () => 1], b: undefined, c: { d: undefined } };
    expect(isPrettyJsonOf(value, pretty(value))).toBe(true);
  });
});
