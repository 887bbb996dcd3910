/**
 * Before a folder is read, whatever an interrupted write left beside it is finished (see
 * crash-journal.ts), so a reader sees the folder wholly old or wholly new, never half a swap.
 * When nothing is beside the folder this costs one readdir of its parent (two for a branch folder).
 */
import { realpath } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { SvcError } from '../core/svc-error.js';
import { type LockAttempt, tryLockFolder } from './folder-lock.js';
import { hasSwapLeftovers, isBranchName, swapUnfinished } from './crash-journal.js';
import { recoverLocked } from './journal-replay.js';

/** How long a reader waits for a live writer's swap (a few renames) before giving up. */
const SWAP_WAIT_MS = 30_000;

/** Where the folder really lives: a symlinked folder is locked and swapped beside its target. */
export async function folderTarget(dir: string): Promise<string> {
  return realpath(dir).catch(() => resolve(dir));
}

/** The default for notices (a stale lock taken over, a swap finished): one line on stderr. */
export function warnOnStderr(message: string): void {
  process.stderr.write(`warning: ${message}\n`);
}

export async function settleFolder(dir: string, notice: (message: string) => void = warnOnStderr) {
  const target = await folderTarget(dir);
  // A branch folder of an app is written with its app folder too (svc init --app-builder, a
  // provider change): that transaction is journaled beside the app folder, and finished first.
  if (isBranchName(basename(target))) await settleTarget(dirname(target), dirname(dir), notice);
  await settleTarget(target, dir, notice);
}

async function settleTarget(target: string, dir: string, notice: (message: string) => void) {
  if (!(await hasSwapLeftovers(target))) return;
  const deadline = Date.now() + SWAP_WAIT_MS;
  for (;;) {
    let attempt: LockAttempt;
    try {
      attempt = await tryLockFolder(target, notice);
    } catch (e) {
      if (!(await swapUnfinished(target))) return;
      throw new SvcError(
        'FOLDER_INVALID',
        `an interrupted write left ${dir} half-swapped, and it cannot be finished without write access beside it (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
        { place: { file: dir }, cause: e },
      );
    }
    if (attempt.ok) {
      try {
        const { notice: done } = await recoverLocked(target);
        if (done) notice(`${dir}: ${done}`);
      } catch (e) {
        if (e instanceof SvcError) throw e;
        throw new SvcError(
          'FOLDER_INVALID',
          `could not finish an interrupted write of ${dir} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}); it is journaled beside the folder and will be retried`,
          { place: { file: dir }, cause: e },
        );
      } finally {
        await attempt.lock.release();
      }
      return;
    }
    // A live writer holds the lock: before and after its swap the folder is whole; during it, wait.
    if (!(await swapUnfinished(target))) return;
    if (Date.now() > deadline) {
      throw new SvcError(
        'FOLDER_INVALID',
        `${dir} is being rewritten by another svc process (${attempt.holder}), which did not finish within ${SWAP_WAIT_MS / 1000} s; its lock is ${attempt.path}${attempt.remedy ? `. ${attempt.remedy}` : ''}`,
        { place: { file: dir } },
      );
    }
    await sleep(20);
  }
}
