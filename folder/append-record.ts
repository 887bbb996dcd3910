/**
 * A failed import adds its history record and touches nothing else: one new file, written
 * beside its final name, fsynced and renamed into place, so even a folder that no longer loads
 * (or holds files the text-based folder writer would not round-trip) keeps every byte it had.
 * It is written under the folder's lock like any other write, so it never lands in the middle
 * of another process's swap (where it would be set aside with the old entries, or block them).
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { renameSynced, writeFileSynced } from './durable-fs.js';
import { withFolderLock } from './write-folder.js';

export async function appendRecord(dir: string, path: string, text: string): Promise<void> {
  try {
    await withFolderLock(dir, async (target) => {
      const full = join(target, ...path.split('/'));
      const temp = `${full}.tmp-${process.pid}`;
      try {
        await mkdir(dirname(full), { recursive: true });
        await writeFileSynced(temp, text);
        await renameSynced(temp, full);
      } catch (cause) {
        await rm(temp, { force: true });
        throw cause;
      }
    });
  } catch (cause) {
    const why = cause instanceof Error ? `: ${cause.message}` : '';
    throw new SvcError('WRITE_FAILED', `could not record the failed import in the history${why}`, {
      place: { file: path },
      cause,
    });
  }
}
