import { describe, expect, it } from 'vitest';
import { newJobId } from './job-id.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('job ids', () => {
  it('are UUIDv7 and sort in the order they were made, within one millisecond too', () => {
    const ids = Array.from({ length: 10_000 }, () => newJobId(1_800_000_000_000));
    for (const id of ids) expect(id).toMatch(UUID_V7);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('keep their order when the clock steps back', () => {
    const later = newJobId(1_900_000_000_000);
    const earlierClock = newJobId(1_899_999_999_000);
    expect(earlierClock > later).toBe(true);
  });

  it('start with the time they were made', () => {
    const id = newJobId(Date.UTC(2100, 0, 1));
    // A clock far ahead of the earlier tests' clocks: the id carries it.
    expect(Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)).toBe(Date.UTC(2100, 0, 1));
  });
});
