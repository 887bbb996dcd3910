import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, prettyCanonicalJson, sameJson } from './canonical-json.js';

describe('canonical JSON', () => {
  it('ignores key order at every level but not array order or values', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { y: 1, x: 0 }], c: null } })).toBe(
      '{"a":{"c":null,"d":[2,{"x":0,"y":1}]},"b":1}',
    );
    expect(canonicalJson({ a: [1, 2] })).not.toBe(canonicalJson({ a: [2, 1] }));
  });

  it('leaves out undefined members and writes undefined items as null, as JSON does', () => {
    const value = { a: undefined, b: [1, undefined], c: 'x' };
    expect(canonicalJson(value)).toBe('{"b":[1,null],"c":"x"}');
    expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
  });

  it('pretty-prints the same value with two spaces and a final newline', () => {
    const value = { z: [{ b: 2, a: 1 }], a: 'é\u2028', m: undefined };
    expect(prettyCanonicalJson(value)).toBe(
      '{\n  "a": "é\u2028",\n  "z": [\n    {\n      "a": 1,\n      "b": 2\n    }\n  ]\n}\n',
    );
    expect(JSON.parse(prettyCanonicalJson(value))).toEqual(JSON.parse(canonicalJson(value)));
  });

  it('sameJson: an absent field equals only an absent field', () => {
    expect(sameJson({ a: 1, b: 2 }, { b: 2, a: 1 })).toBe(true);
    expect(sameJson(undefined, undefined)).toBe(true);
    expect(sameJson(undefined, null)).toBe(false);
    expect(sameJson(null, undefined)).toBe(false);
    expect(sameJson([1], [1, undefined])).toBe(false);
  });

  it('writes any key as JSON does: quotes, backslashes, control characters, unicode, empty', () => {
    const value = { 'a"b': 1, 'c\\d': 2, 'e\nf': 3, é: 4, '': 5, 'x-y.z/$ w_1': 6, '\u2028': 7 };
    expect(canonicalJson(value)).toBe(oracle(value));
  });

  it('is JSON with the keys of every object sorted, for any JSON value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        expect(canonicalJson(v)).toBe(oracle(v));
      }),
    );
  });
});

/** The definition, written plainly: JSON.stringify for everything but an object's key order. */
function oracle(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(oracle).join(',')}]`;
  if (v === null || typeof v !== 'object') return JSON.stringify(v);
  const record = v as Record<string, unknown>;
  const members = Object.keys(record)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${oracle(record[k])}`);
  return `{${members.join(',')}}`;
}
