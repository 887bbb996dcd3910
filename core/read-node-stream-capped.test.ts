import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { capChunks } from './body-cap.js';
import { readNodeStreamCapped } from './read-node-stream-capped.js';
import { isSvcError } from './svc-error.js';

const PLACE = 'https://example.test/other.yaml';
const bytes = (n: number) => Buffer.alloc(n, 0x61);

function stream(chunks: Buffer[], end = true): PassThrough {
  const s = new PassThrough();
  for (const chunk of chunks) s.write(chunk);
  if (end) s.end();
  return s;
}

describe('readNodeStreamCapped', () => {
  it('reads a body of exactly the cap', async () => {
    const out = await readNodeStreamCapped(stream([bytes(6), bytes(4)]), { maxBytes: 10, place: PLACE });
    expect(out.byteLength).toBe(10);
  });

  it('past the cap: destroys the stream and names the place and the cap', async () => {
    const s = stream([bytes(6), bytes(5)], false);
    const error = await readNodeStreamCapped(s, { maxBytes: 10, place: PLACE }).catch((e) => e);
    expect(isSvcError(error) && error.code).toBe('SOURCE_TOO_LARGE');
    expect(error.message).toBe(`${PLACE} is larger than the limit of 10 bytes`);
    expect(error.place).toEqual({ url: PLACE });
    expect(s.destroyed).toBe(true);
  });

  it("throws the caller's own error, and refuses a declared length over the cap unread", async () => {
    const s = stream([bytes(1)], false);
    const mine = new Error('mine');
    const error = await readNodeStreamCapped(s, {
      maxBytes: 10,
      place: PLACE,
      declaredLength: 11,
      tooLarge: () => mine,
    }).catch((e) => e);
    expect(error).toBe(mine);
    expect(s.destroyed).toBe(true);
  });

  it('truncate: keeps what came up to the chunk that crossed the cap', async () => {
    const s = stream([bytes(6), bytes(5)], false);
    const out = await readNodeStreamCapped(s, { maxBytes: 10, place: PLACE, truncate: true });
    expect(out.byteLength).toBe(11);
    expect(s.destroyed).toBe(true);
  });

  it('an abort destroys the stream and rejects with its reason', async () => {
    const s = stream([bytes(1)], false);
    const controller = new AbortController();
    const reading = readNodeStreamCapped(s, { maxBytes: 10, place: PLACE, signal: controller.signal });
    const reason = new Error('timed out');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    expect(s.destroyed).toBe(true);
  });

  it("passes the stream's own error through", async () => {
    const s = stream([bytes(1)], false);
    const reading = readNodeStreamCapped(s, { maxBytes: 10, place: PLACE });
    const failure = new Error('ECONNRESET');
    s.destroy(failure);
    await expect(reading).rejects.toBe(failure);
  });
});

describe('capChunks', () => {
  it('passes chunks up to exactly the cap, and throws on the one that crosses it', async () => {
    async function* chunks() {
      yield bytes(6);
      yield bytes(4);
      yield bytes(1);
    }
    const seen: number[] = [];
    const mine = new Error('over');
    const error = await (async () => {
      for await (const chunk of capChunks(chunks(), { maxBytes: 10, place: PLACE, tooLarge: () => mine }))
        seen.push(chunk.byteLength);
    })().catch((e) => e);
    expect(seen).toEqual([6, 4]);
    expect(error).toBe(mine);
  });
});
