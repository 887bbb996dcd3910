import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from './json-depth.js';

function nested(depth: number): unknown {
  return JSON.parse(`${'['.repeat(depth)}${']'.repeat(depth)}`);
}

describe('exceedsJsonDepth', () => {
  it('counts the value itself as level 1 and scalars as no level', () => {
    expect(exceedsJsonDepth(1, 0)).toBe(false);
    expect(exceedsJsonDepth({}, 1)).toBe(false);
    expect(exceedsJsonDepth({ a: {} }, 1)).toBe(true);
    expect(exceedsJsonDepth([[1, 2], { b: 'x' }], 2)).toBe(false);
    expect(exceedsJsonDepth([[1, [3]]], 2)).toBe(true);
  });

  it('accepts the limit and refuses one more, without recursion even at 100,000 levels', () => {
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH))).toBe(false);
    expect(exceedsJsonDepth(nested(MAX_JSON_DEPTH + 1))).toBe(true);
    expect(exceedsJsonDepth(JSON.parse(`${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`))).toBe(true);
  });
});
