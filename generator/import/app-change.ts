/**
 * A provider change of an app laid out in branch folders, as far as it reaches the disk beyond
 * the import: the files the import carries from the primary branch folder into the app folder,
 * and the retiring of the branch folders once that import succeeded (folder/app-change-journal.ts
 * holds the disk work; the provider-change rules tell it which files are the user's).
 */
import { type AppChangeJournal, retireAppBranches } from '../../folder/app-change-journal.js';
import { type BranchLeft, carriedInto } from '../../folder/branch-folders.js';
import type { FolderFiles } from '../../folder/index.js';
import { keptFiles } from '../init/provider-change.js';
import type { AppLayout } from './app-builder-folders.js';

/**
 * The primary branch folder's own files that the import carries into the app folder: those under
 * the paths svc manages (content items, a README of the user's), which the folder writer replaces
 * as a whole, when the app folder has no file of that name. The rest of the user's files are
 * moved by rename afterwards (`completeAppChange`).
 */
export function carriedFiles(layout: AppLayout): FolderFiles {
  return carriedInto(layout.appDir, keptFiles(layout.primary.files));
}

/**
 * Retires the branch folders named in `journal` (those still there), gives the user's files in
 * the app folder their modes back, and deletes the journal last: killed again on the way, the
 * next run does the rest.
 */
export function completeAppChange(appDir: string, journal: AppChangeJournal): Promise<BranchLeft[]> {
  return retireAppBranches(appDir, journal, keptFiles);
}
