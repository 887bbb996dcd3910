/**
 * A lock between processes on one machine: a file created with O_EXCL, removed when the work is
 * done; one older than `staleMs` is taken to be left by a crashed process and broken. Used where
 * two svc processes may touch the same thing at once (a git cache, a rotating refresh token).
 */
import { open, rm, stat } from 'node:fs/promises';
import { SvcError } from '../../core/svc-error.js';

export interface LockOptions {
  /** How long to wait for another holder (default 60 s). */
  waitMs?: number;
  /** Age after which a lock file is broken (default 5 min). */
  staleMs?: number;
}

export async function withFileLock<T>(
  file: string,
  work: () => Promise<T>,
  opts: LockOptions = {},
): Promise<T> {
  const waitMs = opts.waitMs ?? 60_000;
  const staleMs = opts.staleMs ?? 300_000;
  const start = Date.now();
  for (;;) {
    try {
      await (await open(file, 'wx', 0o600)).close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = await stat(file).then(
        (s) => Date.now() - s.mtimeMs,
        () => 0,
      );
      if (age > staleMs) await rm(file, { force: true });
      else if (Date.now() - start > waitMs) {
        throw new SvcError('SOURCE_UNREACHABLE', `another svc process holds ${file}; try again`, {
          place: { file },
        });
      } else await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }
  try {
    return await work();
  } finally {
    await rm(file, { force: true });
  }
}
