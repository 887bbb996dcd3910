/**
 * A failed import adds its history record and touches nothing else: one new file, written
 * beside its final name and renamed into place, so even a folder that no longer loads (or
 * holds files the text-based folder writer would not round-trip) keeps every byte it had.
 */
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { SvcError } from '../../core/svc-error.js';

export async function appendRecord(dir: string, path: string, text: string): Promise<void> {
  const full = join(dir, ...path.split('/'));
  const temp = `${full}.tmp-${process.pid}`;
  try {
    await mkdir(dirname(full), { recursive: true });
    await writeFile(temp, text, { encoding: 'utf8', flag: 'wx' });
    await rename(temp, full);
  } catch (cause) {
    await rm(temp, { force: true });
    throw new SvcError('WRITE_FAILED', 'could not record the failed import in the history', {
      place: { file: path },
      cause,
    });
  }
}
