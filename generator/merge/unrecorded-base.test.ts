import { describe, expect, it } from 'vitest';
import { isOlderCut, unrecordedBase } from './unrecorded-base.js';

const WHOLE = 'How many pets to return. The maximum is 100; a larger value is capped.';

describe('isOlderCut', () => {
  it('recognizes a first sentence, a capped text and the same words re-wrapped', () => {
    expect(isOlderCut('How many pets to return.', WHOLE)).toBe(true);
    expect(isOlderCut('How many pets to return. The maximum…', WHOLE)).toBe(true);
    expect(isOlderCut('How many pets\nto return. The maximum is 100; a larger value is capped.', WHOLE)).toBe(
      true,
    );
  });

  it('does not take a text of the user’s for a cut', () => {
    expect(isOlderCut('Page size.', WHOLE)).toBe(false);
    // A start of the text that is neither a sentence nor marked cut reads as the user's words.
    expect(isOlderCut('How many pets', WHOLE)).toBe(false);
    expect(isOlderCut('', WHOLE)).toBe(false);
  });
});

describe('unrecordedBase', () => {
  const atomic = () => false;

  it('counts as svc’s what a known generator wrote or an older cut, and the rest as unknown', () => {
    const ours = {
      description: 'List pets.',
      inputSchema: {
        properties: {
          limit: { type: 'integer', description: 'How many pets to return.' },
          status: { type: 'string', description: 'Mine.' },
        },
      },
      outputSchema: { properties: { items: { type: ['array', 'null'] } } },
    };
    const theirs = {
      description: 'List pets. Newest first.',
      inputSchema: {
        properties: {
          limit: { type: 'integer', description: WHOLE },
          status: { type: 'string', description: 'Only pets with this status.' },
        },
      },
      outputSchema: { properties: { items: { type: 'array', items: { type: 'string' } } } },
    };
    const older = { outputSchema: { properties: { items: { type: ['array', 'null'] } } } };
    const { base, unknown } = unrecordedBase(ours, theirs, [theirs, older], atomic);
    // svc's: the base holds the file's value, so today's wins in the three-way merge.
    expect(base.description).toBe('List pets.');
    expect((base.inputSchema as typeof ours.inputSchema).properties.limit.description).toBe(
      'How many pets to return.',
    );
    expect((base.outputSchema as typeof ours.outputSchema).properties.items).toEqual({
      type: ['array', 'null'],
    });
    // The user's: the base holds what today's generator writes, so the file's value wins.
    expect((base.inputSchema as typeof ours.inputSchema).properties.status.description).toBe(
      'Only pets with this status.',
    );
    expect(unknown).toEqual([['inputSchema', 'properties', 'status', 'description']]);
  });

  it('without candidates keeps what differs (a deleted parameter too), but lets new requirements in', () => {
    const ours = { inputSchema: { properties: { a: { type: 'string' } }, required: ['a'] } };
    const theirs = {
      inputSchema: { properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'] },
    };
    const { base, unknown } = unrecordedBase(ours, theirs, [], atomic);
    expect(base).toEqual({
      inputSchema: { properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a'] },
    });
    expect(unknown).toEqual([['inputSchema', 'properties', 'b']]);
  });

  it('takes the endpoint as the API’s: the file was matched to today’s tool by it', () => {
    const { base, unknown } = unrecordedBase(
      { endpoint: { method: 'GET', path: '/pets' } },
      { endpoint: { method: 'GET', path: '/animals' } },
      [],
      (p) => p.length === 1 && p[0] === 'endpoint',
    );
    expect(base.endpoint).toEqual({ method: 'GET', path: '/pets' });
    expect(unknown).toEqual([]);
  });

  it('takes a list of schemas as svc’s when each item is, and as the user’s otherwise', () => {
    const older = { anyOf: [{ required: ['a'] }, { type: 'object' }] };
    const today = {
      anyOf: [{ required: ['a'], properties: { a: { description: 'x' } } }, { type: 'object' }],
    };
    const before = { anyOf: [{ required: ['a'] }, { type: 'object' }] };
    expect(unrecordedBase(older, today, [before], atomic)).toEqual({ base: older, unknown: [] });
    const edited = { anyOf: [{ required: ['a'] }, { type: 'object', title: 'Mine' }] };
    const r = unrecordedBase(edited, today, [before], atomic);
    expect(r.unknown).toEqual([['anyOf']]);
    expect(r.base.anyOf).toEqual(before.anyOf);
  });

  it('reports a requirement the file adds as the user’s', () => {
    const ours = { inputSchema: { required: ['a', 'c'] } };
    const theirs = { inputSchema: { required: ['a', 'b'] } };
    const { base, unknown } = unrecordedBase(ours, theirs, [], atomic);
    expect(base).toEqual({ inputSchema: { required: ['a'] } });
    expect(unknown).toEqual([['inputSchema', 'required']]);
  });
});
