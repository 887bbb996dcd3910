import { describe, expect, it } from 'vitest';
import { readWebStreamCapped } from './read-web-stream-capped.js';
import { isSvcError } from './svc-error.js';

/** A stream of `chunks` that records whether it was cancelled; `hold` leaves it open at the end. */
function source(chunks: Uint8Array[], hold = false) {
  const state = { cancelled: false as boolean, reason: undefined as unknown, pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks[state.pulled++];
      if (next) controller.enqueue(next);
      else if (!hold) controller.close();
    },
    cancel(reason) {
      state.cancelled = true;
      state.reason = reason;
    },
  });
  return { stream, state };
}

const bytes = (n: number) => new Uint8Array(n).fill(0x61);
const PLACE = 'https://example.test/spec.json';

describe('readWebStreamCapped', () => {
  it('reads a body of exactly the cap', async () => {
    const { stream } = source([bytes(6), bytes(4)]);
    const out = await readWebStreamCapped(stream, { maxBytes: 10, place: PLACE });
    expect(out.byteLength).toBe(10);
  });

  it('past the cap: cancels the stream and names the place and the cap', async () => {
    const { stream, state } = source([bytes(6), bytes(5), bytes(100)]);
    const error = await readWebStreamCapped(stream, { maxBytes: 10, place: PLACE }).catch((e) => e);
    expect(isSvcError(error) && error.code).toBe('SOURCE_TOO_LARGE');
    expect(error.message).toBe(`${PLACE} is larger than the limit of 10 bytes`);
    expect(error.place).toEqual({ url: PLACE });
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBeLessThan(3);
  });

  it("throws the caller's own error, and refuses a declared length over the cap unread", async () => {
    const { stream, state } = source([bytes(1)]);
    const mine = new Error('mine');
    const error = await readWebStreamCapped(stream, {
      maxBytes: 10,
      place: PLACE,
      declaredLength: '11',
      tooLarge: () => mine,
    }).catch((e) => e);
    expect(error).toBe(mine);
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBe(0);
  });

  it('truncate: keeps what came up to the chunk that crossed the cap, then cancels', async () => {
    const { stream, state } = source([bytes(6), bytes(5), bytes(100)]);
    const out = await readWebStreamCapped(stream, { maxBytes: 10, place: PLACE, truncate: true });
    expect(out.byteLength).toBe(11);
    expect(state.cancelled).toBe(true);
  });

  it('an abort cancels the stream and rejects with its reason', async () => {
    const { stream, state } = source([bytes(1)], true);
    const controller = new AbortController();
    const reading = readWebStreamCapped(stream, { maxBytes: 10, place: PLACE, signal: controller.signal });
    const reason = new Error('timed out');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(state.cancelled).toBe(true);
    expect(state.reason).toBe(reason);
  });

  it('an empty body is no bytes', async () => {
    expect((await readWebStreamCapped(null, { maxBytes: 1, place: PLACE })).byteLength).toBe(0);
  });
});
