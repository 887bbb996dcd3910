/**
 * A provider change of an app laid out in branch folders, as far as it reaches the disk beyond
 * the import: the files the import carries from the primary branch folder into the app folder,
 * and the retiring of the branch folders once that import succeeded (folder/app-change-journal.ts
 * holds the disk work; the provider-change rules tell it which files are the user's).
 */
import path from 'node:path';
import {
  APP_CHANGE_JOURNAL,
  type AppChangeJournal,
  renderJournal,
  retireAppBranches,
} from '../../folder/app-change-journal.js';
import { type BranchLeft, carriedInto } from '../../folder/branch-folders.js';
import type { FolderFiles } from '../../folder/index.js';
import { fileModes, readUserFiles } from '../../folder/user-files.js';
import type { SvcConfig } from '../../schemas/types.js';
import { keptFiles } from '../init/provider-change.js';
import { type AppLayout, appServerId } from './app-builder-folders.js';
import { importFolder } from './import-folder.js';
import type { ImportResult } from './import-types.js';
import type { GitAccess } from './source-reader.js';

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

export interface AppChangeInput {
  layout: AppLayout;
  /** The new server's config (its id is the app's, taken from the primary branch folder). */
  config: SvcConfig;
  /** Git and raw-URL sources: as for importFolder. */
  git?: GitAccess | undefined;
  /** The import's result, once it is written and before anything is retired (the caller prints it). */
  onImported?: (result: ImportResult) => void;
  /** Called between the import and the retiring (a test kills the process there). */
  beforeRetire?: () => void | Promise<void>;
}

export interface AppChangeResult {
  result: ImportResult;
  journal: AppChangeJournal;
  /** The branch folders that stay with files of the user's; undefined when the import failed. */
  left?: BranchLeft[];
}

/**
 * A provider change of an app laid out in branch folders: the new server is imported into the
 * app folder itself first, with the primary branch folder's own files and whatever of the user's
 * is already in the app folder, while the branch folders are left untouched; only once that
 * import succeeded are the branch folders retired (svc's files go, the user's move or stay). A
 * failed import thus leaves the whole tree exactly as it was, bytes and modes.
 */
export async function changeAppProvider(input: AppChangeInput): Promise<AppChangeResult> {
  const { layout } = input;
  const own = await readUserFiles(layout.appDir);
  const carried = carriedFiles(layout);
  const modes = new Map([...own.modes, ...(await fileModes(layout.primary.dir, Object.keys(carried)))]);
  const journal: AppChangeJournal = {
    branches: layout.branches.map((b) => path.basename(b.dir)),
    primary: path.basename(layout.primary.dir),
    carried: Object.keys(carried),
    modes: Object.fromEntries(modes),
  };
  const config = { ...input.config, server: { ...input.config.server, id: appServerId(layout.primary) } };
  // The journal goes in with the new server, in one atomic write: a run killed after it is finished by the next.
  const result = await importFolder({
    dir: layout.appDir,
    config,
    userFiles: { ...carried, ...own.files, [APP_CHANGE_JOURNAL]: renderJournal(journal) },
    ...(input.git ? { git: input.git } : {}),
  });
  input.onImported?.(result);
  if (result.status === 'failed') return { result, journal };
  await input.beforeRetire?.();
  return { result, journal, left: await completeAppChange(layout.appDir, journal) };
}
