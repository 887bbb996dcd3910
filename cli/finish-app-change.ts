/**
 * What `svc source set` prints of a provider change of an app in branch folders: the retiring of
 * the branch folders, and the finishing of a change interrupted after its import (the journal and
 * the disk work are in folder/crash-journal.ts, the rules in generator/import/app-change.ts).
 */
import path from 'node:path';
import type { CliIo } from '../core/command.js';
import type { BranchLeft } from '../folder/branch-folders.js';
import type { Retirement } from '../folder/crash-journal.js';
import { finishAppChange } from '../generator/import/app-change.js';

/** The lines that tell what retiring did. */
export function describeRetired(appLabel: string, retirement: Retirement, left: BranchLeft[]): string[] {
  const stays = new Set(left.map((l) => l.name));
  const gone = retirement.branches
    .map((b) => b.name)
    .filter((n) => !stays.has(n))
    .sort();
  const lines = [`The app's server is now ${appLabel} itself.`];
  if (gone.length > 0) lines.push(`Its branch folders ${gone.map((n) => `${n}/`).join(', ')} were deleted.`);
  for (const l of left) {
    lines.push(
      `${l.name}/ keeps files of yours svc did not write (only its own files were deleted): ${l.files.join(', ') || '(hidden entries)'}`,
    );
  }
  return lines;
}

/**
 * Finishes a provider change that was interrupted after its import, when `dir` is the app folder
 * or one of its branch folders. Returns whether there was one to finish.
 */
export async function finishInterruptedAppChange(io: CliIo, dir: string): Promise<boolean> {
  const finished = await finishAppChange(dir);
  if (finished === undefined) return false;
  const { appDir, retirement, left, notice } = finished;
  const appLabel = path.relative(io.cwd, appDir) || '.';
  // The same words as any command that finishes it (folder/journal-replay.ts), on stdout: it is the answer.
  io.stdout(`${appLabel}: ${notice}\n`);
  io.stdout(`${describeRetired(appLabel, retirement, left).join('\n')}\n`);
  return true;
}
