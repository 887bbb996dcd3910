/**
 * Reads a folder only between two writes, for a reader that follows a folder while svc writes it
 * (`svc serve --watch`). Nothing a write leaves beside the folder (its lock, its journal, its
 * temporary directories) may be there before or after the read, and the folder's top level must
 * not change during it (a swap renames top-level entries): then no write was under way and the
 * files read are one whole version. Otherwise the answer is "not now", and the reader looks
 * again later. Such a reader never takes the lock, so it never makes a writer fail.
 */
import { stat } from 'node:fs/promises';
import { basename, dirname } from 'node:path';
import type { FolderFiles } from './model.js';
import { type ReadFolderOptions, readFolder } from './read-folder.js';
import { folderTarget } from './settle-folder.js';
import { hasSwapLeftovers, isBranchName } from './crash-journal.js';

/** The folder's files, or undefined while a write is under way (or ran during the read). */
export async function readFolderBetweenWrites(
  dir: string,
  opts: Omit<ReadFolderOptions, 'settle'> = {},
): Promise<FolderFiles | undefined> {
  const target = await folderTarget(dir);
  const mark = async (): Promise<string | undefined> => {
    if (await hasSwapLeftovers(target)) return undefined;
    // A branch folder is also written by a write of its app folder (crash-journal.ts).
    if (isBranchName(basename(target)) && (await hasSwapLeftovers(dirname(target)))) return undefined;
    return stat(target, { bigint: true }).then(
      (s) => `${s.ino}:${s.ctimeNs}:${s.mtimeNs}`,
      () => 'absent',
    );
  };
  const before = await mark();
  if (before === undefined) return undefined;
  const files = await readFolder(dir, { ...opts, settle: false });
  const after = await mark();
  return after === before ? files : undefined;
}
