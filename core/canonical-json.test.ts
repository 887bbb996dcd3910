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
});
