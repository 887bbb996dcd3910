import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { decodeText } from './decode-text.js';
import { MAX_DOCUMENT_DEPTH, tooDeepInValue, tooDeepInYaml } from './nesting-depth.js';
import { collectRefs } from './ref-walk.js';

/** YAML block maps `k1: k2: … kN: leaf`, N levels below the root map. */
function blockMaps(levels: number, key = (i: number) => `k${i}`): string {
  let text = '';
  for (let i = 1; i <= levels; i++) text += `${'  '.repeat(i - 1)}${key(i)}:\n`;
  return `${text}${'  '.repeat(levels)}leaf: 1\n`;
}

describe('nesting depth', () => {
  it('finds nothing in a document within the limit', () => {
    expect(tooDeepInValue({ a: [{ b: {} }] }, 4)).toBeUndefined();
    expect(tooDeepInYaml('a:\n  - b: {}\n', 4)).toBeUndefined();
  });

  it('names the first object or array past the limit, in document order, escaped as a JSON pointer', () => {
    const value = { ok: [1], 'a/b': { 'c~d': [[{}]] } };
    expect(tooDeepInValue(value, 3)).toBe('/a~1b/c~0d/0');
    expect(tooDeepInYaml('ok: [1]\n"a/b":\n  c~d: [[{}]]\n', 3)).toBe('/a~1b/c~0d/0');
  });

  it('agrees between the value and the CST on block maps, sequences and flow collections', () => {
    const texts = [
      blockMaps(12),
      blockMaps(12, (i) => (i % 2 ? `"quoted ${i}"` : `'single ${i}'`)),
      `x:\n${'- '.repeat(12)}leaf\n`,
      `x: ${'{a: '.repeat(12)}1${'}'.repeat(12)}\n`,
      `x: ${'['.repeat(12)}${']'.repeat(12)}\n`,
    ];
    for (const text of texts) {
      const pointer = tooDeepInYaml(text, 8);
      expect(pointer, text).toBeDefined();
      expect(pointer, text).toBe(tooDeepInValue(parse(text), 8));
    }
  });

  it('measures YAML too deep for the yaml package to compose, without overflowing', () => {
    const text = blockMaps(3000);
    expect(() => parse(text)).toThrow(/call stack/i);
    expect(tooDeepInYaml(text, 256)).toBe(Array.from({ length: 256 }, (_, i) => `/k${i + 1}`).join(''));
  });
});

describe('tooDeepInValue against a plain recursive measure', () => {
  /** The first node past `limit` in document order, found by recursion (fine for small values). */
  function reference(node: unknown, limit: number, depth = 1, at = ''): string | undefined {
    if (node === null || typeof node !== 'object') return undefined;
    if (depth > limit) return at;
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (const [segment, child] of entries) {
      const found = reference(
        child,
        limit,
        depth + 1,
        `${at}/${segment.replaceAll('~', '~0').replaceAll('/', '~1')}`,
      );
      if (found !== undefined) return found;
    }
    return undefined;
  }

  it('names the same node on random values, at every limit', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const build = (depth: number): unknown => {
      const r = random();
      if (depth > 9 || r < 0.25) return r < 0.1 ? null : Math.floor(r * 10);
      const size = Math.floor(random() * 4);
      if (r < 0.6) return Array.from({ length: size }, () => build(depth + 1));
      const out: Record<string, unknown> = {};
      for (let i = 0; i < size; i++)
        out[['a', 'b/c', 'd~e', '1', '__proto__'][i % 5]! + i] = build(depth + 1);
      return out;
    };
    for (let n = 0; n < 300; n++) {
      const value = build(0);
      for (let limit = 0; limit <= 11; limit++)
        expect(tooDeepInValue(value, limit)).toBe(reference(value, limit));
    }
    expect(tooDeepInValue(JSON.parse('{"__proto__": {"a": [{}]}}'), 3)).toBe('/__proto__/a/0');
  });
});

describe('the $refs the depth walk collects', () => {
  const withRefs = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 1 }),
      tie('object'),
      fc.array(tie('value'), { maxLength: 4 }),
    ),
    object: fc
      .tuple(
        fc.dictionary(
          fc.oneof(fc.string({ maxLength: 3 }), fc.constantFrom('a/b', 'c~d', '0')),
          tie('value'),
          {
            maxKeys: 4,
          },
        ),
        fc.option(fc.constantFrom('#/a', '#/components/schemas/x', 'other.yaml#/x', 'https://x.test/s.json')),
      )
      .map(([members, ref]) => (ref === null ? members : { ...members, $ref: ref })),
  }));

  it('are those collectRefs finds walking the document, in the same order with the same pointers', () => {
    fc.assert(
      fc.property(withRefs.value, (value) => {
        const refs = { internal: [], external: [] };
        expect(tooDeepInValue(value, MAX_DOCUMENT_DEPTH, refs)).toBeUndefined();
        expect(refs).toEqual(collectRefs(structuredClone(value)));
      }),
      { numRuns: 300 },
    );
  });

  it('are handed to collectRefs once, for the document decoded: a second call walks it again', async () => {
    const text = gunzipSync(readFileSync('fixtures/reimport/api.github.com-22.0.0.json.gz')).toString('utf8');
    const value = (await decodeText({ text, origin: 'gh.json', bytes: text.length })) as object;
    const walked = collectRefs(structuredClone(value));
    expect(walked.internal.length).toBeGreaterThan(1000);
    expect(collectRefs(value)).toEqual(walked);
    expect(collectRefs(value)).toEqual(walked);
  }, 60_000);
});
