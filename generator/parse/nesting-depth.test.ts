import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { tooDeepInValue, tooDeepInYaml } from './nesting-depth.js';

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
