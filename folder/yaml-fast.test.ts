import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isDeepStrictEqual } from 'node:util';
import { parse } from 'yaml';
import { yamlText } from '../generator/render/yaml-text.js';
import { FALLBACK, readYamlFast } from './yaml-fast.js';

/** For every input: the fast reader either declines or agrees with the yaml package. */
function agrees(text: string): 'fast' | 'fallback' {
  const fast = readYamlFast(text);
  if (fast === FALLBACK) return 'fallback';
  expect(fast, text).toEqual(parse(text));
  // toEqual ignores prototypes; own keys and prototypes must match too.
  expect(isDeepStrictEqual(fast, parse(text)), text).toBe(true);
  return 'fast';
}

const TRICKY = [
  '',
  ' ',
  'plain words',
  'yes',
  'No',
  'on',
  'null',
  '~',
  'true',
  '123',
  '-1',
  '1e3',
  '0x1F',
  '.5',
  '+.0',
  '-.5e3',
  '.inf',
  '12:30',
  '2024-01-01',
  'a: b',
  'a:b',
  'ends:',
  'a #b',
  'a#b',
  '#x',
  '- item',
  '-dash',
  '[x]',
  '{x}',
  '/orders/{id}',
  '$ref',
  '@at',
  '`tick`',
  "it's",
  '"quoted"',
  'back\\slash',
  'tab\there',
  'trail ',
  ' lead',
  'uni ✓ é 漢字',
  'emoji 😀',
  'lone \ud800 surrogate',
  'del \x7f char',
  'nel \x85 char',
  'ls \u2028 sep',
  'bom \ufeff',
  'bell \x07',
  'line1\nline2',
  'line1\nline2\n',
  'line1\nline2\n\n',
  '\nleading newline',
  '  indented first\nsecond',
  '\tfirst tab\nx',
  'trailing space \nx',
  'a\n\n\nb\n',
  '\n',
  '\n\n',
  'cr\r\nlf',
  '---\nnot a doc marker',
  '...',
  '| pipe',
  '> gt',
  '! bang',
  '% pct',
  '& amp',
  '* star',
  '? q',
  ', comma',
  '=equals',
  '<<',
  '593d5c8076f66c31',
  '12345e6789012345',
  '1234567890123456',
  '0o17',
  '0b101',
  '0x_1',
  '1.2.3',
  '1_000',
  '1:2',
  '123abc',
  '(deprecated) x',
  '.hidden',
  '..',
  '../../x.yaml',
  '.Inf',
  '.NaN',
  '=',
  '~x',
  '+1',
  '-dash',
  '2024-01-01T00:00:00Z',
  '2024-1-1',
  'é accent first',
  '\x85 nel first',
  '\x7f del first',
  '😀 emoji first',
  // Keys that mean something to a plain JS object: they must come back as own keys, as `yaml` gives them.
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '__defineGetter__',
  'valueOf',
];

describe('readYamlFast agrees with the yaml package', () => {
  test('on every tricky string as a value, a key, a list item and inside a list of maps', () => {
    let fast = 0;
    for (const s of TRICKY) {
      const value = {
        v: s,
        [s]: 'as key',
        list: [s, 1, true, null, [s, [s]], { k: s, n: { d: s } }],
        deep: { deeper: { s } },
        objs: [{ description: s, other: s }],
      };
      const text = yamlText(value);
      expect(parse(text), text).toEqual(value);
      if (agrees(text) === 'fast') fast++;
    }
    // svc's own output always takes the fast path.
    expect(fast).toBe(TRICKY.length);
  });

  test('numbers, booleans, null, empty collections', () => {
    const value = {
      i: 0,
      n: -12,
      f: 1.5,
      e: 1e21,
      small: 1e-7,
      t: true,
      f2: false,
      z: null,
      o: {},
      a: [],
      big: 2 ** 53,
    };
    const text = yamlText(value);
    expect(readYamlFast(text)).toEqual(parse(text));
    expect(readYamlFast(text)).toEqual(value);
  });

  test('hand-written YAML: either the same value or a fallback, never a different value', () => {
    const inputs = [
      'a: 1\n# comment\nb: 2\n',
      'a: 1 # trailing comment\n',
      'a:\n- x\n- y\n',
      'a:\n    b: 1\n',
      'a: [1, 2]\n',
      'a: {b: 1}\n',
      "a: 'single'\n",
      'a: &x 1\nb: *x\n',
      'a: !!str 1\n',
      'a: >\n  folded\n  text\n',
      'a: |+\n  keep\n\n',
      'a: |\n    more indented\n',
      'a: 1\na: 2\n',
      'a: 1\n\nb: 2\n',
      '---\na: 1\n',
      'a: "unterminated\n',
      'a: "x" "y"\n',
      'a: "\\x41"\n',
      'a: plain\n  continuation\n',
      '- top level seq\n',
      'a:\n  - b: 1\n    c: 2\n  - d\n',
      'a:\n  -\n    b: 1\n',
      'a: 0o17\n',
      'a: +1\n',
      'a: 1_000\n',
      'a:\tb\n',
      'a: b\r\n',
      'key with spaces: v\n',
      '"quoted key": v\n',
      '? complex\n: key\n',
      'a: |\n  x\n  \n  y\n',
    ];
    for (const text of inputs) {
      let yamlValue: unknown;
      try {
        yamlValue = parse(text);
      } catch {
        expect(readYamlFast(text), text).toBe(FALLBACK);
        continue;
      }
      const fast = readYamlFast(text);
      if (fast !== FALLBACK) expect(fast, text).toEqual(yamlValue);
    }
  });

  test('the GitHub API rendered as tools: every file read fast and equal', async () => {
    const path = 'node_modules/@octokit/openapi/generated/api.github.com.json';
    let doc: { paths: Record<string, Record<string, unknown>> };
    try {
      doc = JSON.parse(readFileSync(path, 'utf8'));
    } catch {
      return; // the dev dependency is absent: nothing to compare
    }
    // Real, messy JSON Schema straight from the document (not through the generator): 60 operations.
    const ops = Object.values(doc.paths)
      .flatMap((p) => Object.values(p))
      .slice(0, 60);
    for (const op of ops) {
      const text = yamlText({ op });
      const fast = readYamlFast(text);
      expect(fast).not.toBe(FALLBACK);
      expect(fast).toEqual(parse(text));
    }
  });

  test('__proto__, constructor and prototype keys are own keys and never change the prototype', () => {
    const inputs = [
      'name: x\n__proto__:\n  enabled: true\n',
      '__proto__: 1\n',
      'constructor:\n  name: x\n',
      'prototype:\n  enabled: true\n',
      'a:\n  __proto__:\n    enabled: true\nb:\n  - __proto__:\n      enabled: true\n',
      '"__proto__":\n  enabled: true\n',
    ];
    for (const text of inputs) {
      const fast = readYamlFast(text);
      const expected = parse(text, { uniqueKeys: true, merge: false });
      if (fast === FALLBACK) continue;
      expect(isDeepStrictEqual(fast, expected), text).toBe(true);
      expect((fast as { enabled?: unknown }).enabled, text).toBeUndefined();
      expect(Object.getPrototypeOf(fast), text).toBe(Object.prototype);
    }
    // A prototype must never be replaced, at any depth.
    const nested = readYamlFast('a:\n  __proto__:\n    enabled: true\n') as { a: object };
    expect(Object.getPrototypeOf(nested.a)).toBe(Object.prototype);
    expect(({} as { enabled?: unknown }).enabled).toBeUndefined();
  });
});
