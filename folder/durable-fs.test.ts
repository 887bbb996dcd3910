import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { textPieces, writeFileSynced } from './durable-fs.js';

describe('writing a large text a piece at a time', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('never splits a surrogate pair, so the pieces encode to the text', () => {
    const text = `a${'😀'.repeat(5)}é\uD800b`;
    for (const size of [1, 2, 3, 4, 5]) {
      const pieces = [...textPieces(text, size)];
      expect(pieces.join('')).toBe(text);
      expect(Buffer.concat(pieces.map((p) => Buffer.from(p)))).toEqual(Buffer.from(text));
    }
  });

  it('writes the bytes a one-piece write gives', async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-durable-'));
    const text = `${'{ "title": "Café ’23 — ✓ 😀" }\n'.repeat(60_000)}`;
    expect(text.length).toBeGreaterThan(1 << 20);
    await writeFileSynced(join(dir, 'big.json'), text);
    expect(await readFile(join(dir, 'big.json'))).toEqual(Buffer.from(text));
  });
});
