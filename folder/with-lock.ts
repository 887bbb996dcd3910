/**
 * Waits for, takes and releases the lock of a path other than a server folder (a git cache, a
 * connection's rotating refresh token), with the same judgement of stale locks as the folder
 * writer: a lock is taken over only when its process is gone, never because it is old, so a long
 * fetch is not broken into by a second process.
 */
import { SvcError } from '../core/svc-error.js';
import { tryLockFolder } from './folder-lock.js';

export interface WithLockOptions {
  /** How long to wait for another holder before giving up (default 60 s). */
  waitMs?: number;
  /** Told when a stale lock is taken over. */
  notice?: (message: string) => void;
  /** The clock and the pause between attempts; tests pass their own. */
  now?: () => number;
  pause?: (ms: number) => Promise<void>;
}

const POLL_MS = 25;

/** Runs `work` holding the lock of `target` (a file or directory path), waiting while another process holds it. */
export async function withLock<T>(
  target: string,
  work: () => Promise<T>,
  opts: WithLockOptions = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 60_000;
  const now = opts.now ?? Date.now;
  const pause = opts.pause ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const notice = opts.notice ?? (() => undefined);
  const start = now();
  for (;;) {
    const attempt = await tryLockFolder(target, notice);
    if (attempt.ok) {
      try {
        return await work();
      } finally {
        await attempt.lock.release();
      }
    }
    if (now() - start >= waitMs) {
      // The same code as a folder whose lock is held: the caller's work could not be written.
      throw new SvcError(
        'WRITE_FAILED',
        `another svc process (${attempt.holder}) holds ${attempt.path}; try again${attempt.remedy ? `. ${attempt.remedy}` : ''}`,
        { place: { file: attempt.path } },
      );
    }
    await pause(POLL_MS);
  }
}
