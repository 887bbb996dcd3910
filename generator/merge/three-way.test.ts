import { describe, expect, it } from 'vitest';
import { type Conflict, mergeThreeWay } from './three-way.js';

const oursWins = () => ({ take: 'ours' as const });
const theirsWins = () => ({ take: 'theirs' as const, reason: 'r' });

describe('mergeThreeWay', () => {
  it('keeps the side that moved away from base, field by field', () => {
    const base = { a: 1, b: 'x', c: { d: true } };
    const ours = { a: 2, b: 'x', c: { d: true } };
    const theirs = { a: 1, b: 'y', c: { d: false } };
    const out = mergeThreeWay(base, ours, theirs, theirsWins);
    expect(out.value).toEqual({ a: 2, b: 'y', c: { d: false } });
    expect(out.conflicts).toEqual([]);
  });

  it('hands a real conflict to the policy with its path and the three values', () => {
    const seen: Conflict[] = [];
    const out = mergeThreeWay({ p: { q: 1 } }, { p: { q: 2 } }, { p: { q: 3 } }, (c) => {
      seen.push(c);
      return { take: 'ours' };
    });
    expect(out.value).toEqual({ p: { q: 2 } });
    expect(seen).toEqual([{ path: ['p', 'q'], base: 1, ours: 2, theirs: 3 }]);
    expect(out.conflicts).toEqual([
      { path: ['p', 'q'], base: 1, ours: 2, theirs: 3, take: 'ours', result: 2 },
    ]);
    expect(mergeThreeWay({ q: 1 }, { q: 2 }, { q: 3 }, theirsWins).value).toEqual({ q: 3 });
  });

  it('keeps a deletion the other side did not touch, and an addition of either side', () => {
    const base = { keep: 1, drop: 2 };
    expect(mergeThreeWay(base, { keep: 1, mine: 3 }, { keep: 1, drop: 2, new: 4 }, theirsWins).value).toEqual(
      {
        keep: 1,
        mine: 3,
        new: 4,
      },
    );
  });

  it("keeps ours' key order; a key only theirs has goes after its predecessor there", () => {
    const base = { a: 1, b: 2, c: 3 };
    const ours = { c: 3, b: 2, a: 1 };
    const theirs = { a: 1, b: 2, n: 9, c: 3 };
    expect(Object.keys(mergeThreeWay(base, ours, theirs, theirsWins).value as object)).toEqual([
      'c',
      'b',
      'n',
      'a',
    ]);
  });

  it('merges set-like keyword arrays item by item, other arrays (enum too) whole', () => {
    const base = { required: ['a', 'b'], type: ['string'], enum: ['x', 'y', 'z'], list: [1, 2] };
    const ours = { required: ['a'], type: ['string'], enum: ['x', 'y'], list: [1, 2, 3] };
    const theirs = { required: ['a', 'b', 'c'], type: ['string', 'null'], enum: ['x', 'z', 'w'], list: [1] };
    const out = mergeThreeWay(base, ours, theirs, oursWins);
    expect(out.value).toEqual({
      required: ['a', 'c'],
      type: ['string', 'null'],
      enum: ['x', 'y'],
      list: [1, 2, 3],
    });
    expect(out.conflicts.map((c) => c.path.join('.'))).toEqual(['enum', 'list']);
  });

  it('writes the value a policy settles on when it is neither side', () => {
    const out = mergeThreeWay({ a: [1, 2, 3] }, { a: [1, 2] }, { a: [2, 3, 4] }, (c) => ({
      take: 'theirs',
      reason: 'cut',
      value: (c.ours as number[]).filter((v) => (c.theirs as number[]).includes(v)),
    }));
    expect(out.value).toEqual({ a: [2] });
    expect(out.conflicts[0]).toMatchObject({ take: 'theirs', result: [2], reason: 'cut' });
  });

  it('treats a property named like a keyword as a name, not a keyword', () => {
    const base = { properties: { required: [1] } };
    const out = mergeThreeWay(
      base,
      { properties: { required: [2] } },
      { properties: { required: [3] } },
      theirsWins,
    );
    expect(out.value).toEqual({ properties: { required: [3] } });
    expect(out.conflicts).toHaveLength(1);
  });
});
