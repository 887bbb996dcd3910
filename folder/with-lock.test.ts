import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { SvcError } from '../core/svc-error.js';
import { lockPathOf } from './folder-lock.js';
import { withLock } from './with-lock.js';

let base: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-with-lock-'));
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

describe('withLock', () => {
  test('two holders of one path take turns, and the lock is gone afterwards', async () => {
    const target = join(base, 'cache.git');
    const events: string[] = [];
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const first = withLock(target, async () => {
      events.push('first in');
      await held;
      events.push('first out');
    });
    // Let the first take the lock before the second asks.
    while (events.length === 0) await new Promise((resolve) => setImmediate(resolve));
    // The second finds the lock held and pauses before trying again: that is the event awaited.
    let foundHeld!: () => void;
    const waiting = new Promise<void>((resolve) => {
      foundHeld = resolve;
    });
    const second = withLock(
      target,
      async () => {
        events.push('second in');
      },
      {
        pause: (ms) => {
          foundHeld();
          return new Promise((resolve) => setTimeout(resolve, ms));
        },
      },
    );
    await waiting;
    expect(events).toEqual(['first in']);
    release();
    await Promise.all([first, second]);
    expect(events).toEqual(['first in', 'first out', 'second in']);
    expect(await readdir(base)).toEqual([]);
  });

  test('past the wait, it fails naming the lock file and its holder, and the work never runs', async () => {
    const target = join(base, 'refresh');
    let clock = 0;
    await withLock(target, async () => {
      let ran = false;
      const error = await withLock(
        target,
        async () => {
          ran = true;
        },
        {
          waitMs: 1000,
          now: () => clock,
          pause: async () => {
            clock += 400;
          },
        },
      ).catch((e: unknown) => e);
      expect(ran).toBe(false);
      expect(error).toBeInstanceOf(SvcError);
      expect((error as SvcError).code).toBe('WRITE_FAILED');
      expect((error as SvcError).message).toContain(lockPathOf(target));
      expect((error as SvcError).message).toContain(`pid ${process.pid}`);
      expect(clock).toBe(1200);
    });
  });

  test('a lock whose process is gone is taken over, however young it is', async () => {
    const target = join(base, 'cache.git');
    // A pid that cannot be running: above the kernel's pid_max.
    await writeFile(lockPathOf(target), `${JSON.stringify({ pid: 2 ** 30 })}\n`);
    const notices: string[] = [];
    const value = await withLock(target, async () => 'done', { notice: (m) => notices.push(m), waitMs: 0 });
    expect(value).toBe('done');
    expect(notices).toEqual([
      `took over the stale lock ${lockPathOf(target)}: pid ${2 ** 30} is no longer running`,
    ]);
  });
});
