/**
 * A provider change of an app laid out in branch folders, as far as it reaches the disk beyond
 * the import: the files the import carries from the primary branch folder into the app folder,
 * and the retiring of the branch folders once that import succeeded. Both are one transaction of
 * the crash journal (folder/crash-journal.ts): the branch folders to retire are journaled with the
 * app folder's swap, so a run killed between the two is finished by the next command; this file
 * holds the provider-change rule that tells svc's files in a branch folder from the user's.
 */
import path from 'node:path';
import {
  isBranchName,
  LEGACY_APP_CHANGE,
  type LegacyAppChange,
  pendingRetirement,
  readLegacyAppChange,
  type RetiredBranch,
  type Retirement,
} from '../../folder/crash-journal.js';
import { type BranchLeft, carriedInto, realBranchDir } from '../../folder/branch-folders.js';
import type { FolderFiles } from '../../folder/index.js';
import { readFolder } from '../../folder/read-folder.js';
import { fileModes, readUserFiles } from '../../folder/user-files.js';
import { journalRetirement, recoverFolder } from '../../folder/write-folder.js';
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
 * moved by rename afterwards, when the branch folders are retired.
 */
export function carriedFiles(layout: AppLayout): Promise<FolderFiles> {
  return carriedInto(layout.appDir, keptFiles(layout.primary.files));
}

/** A branch folder's entry in the journal: the files svc wrote there (the provider-change rule). */
function retiredBranch(name: string, files: FolderFiles): RetiredBranch {
  const kept = keptFiles(files);
  return { name, svcFiles: Object.keys(files).filter((p) => !Object.hasOwn(kept, p)) };
}

export interface AppChangeInput {
  layout: AppLayout;
  /** The new server's config (its id is the app's, taken from the primary branch folder). */
  config: SvcConfig;
  /** Git and raw-URL sources: as for importFolder. */
  git?: GitAccess | undefined;
  /** The import's result, once it is written and before anything is retired (the caller prints it). */
  onImported?: (result: ImportResult) => void;
  /**
   * Called between the import and the retiring ("retire"), and before each branch folder is
   * retired ("retire <name>"): a test kills the process there.
   */
  beforeRetire?: (step: string) => void | Promise<void>;
}

export interface AppChangeResult {
  result: ImportResult;
  retirement: Retirement;
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
  const carried = await carriedFiles(layout);
  const modes = new Map([...own.modes, ...(await fileModes(layout.primary.dir, Object.keys(carried)))]);
  const retirement: Retirement = {
    branches: layout.branches.map((b) => retiredBranch(path.basename(b.dir), b.files)),
    primary: path.basename(layout.primary.dir),
    carried: Object.keys(carried),
    modes: Object.fromEntries(modes),
  };
  const config = { ...input.config, server: { ...input.config.server, id: appServerId(layout.primary) } };
  // The retiring is journaled with the new server's swap: a run killed after it is finished by the next.
  const result = await importFolder({
    dir: layout.appDir,
    config,
    userFiles: { ...carried, ...own.files },
    retire: retirement,
    ...(input.git ? { git: input.git } : {}),
  });
  input.onImported?.(result);
  if (result.status === 'failed') return { result, retirement };
  await input.beforeRetire?.('retire');
  // Another svc command may have retired them since: then nothing is left here to retire.
  const recovery = await recoverFolder(
    layout.appDir,
    input.beforeRetire ? { beforeStep: input.beforeRetire } : {},
  );
  return { result, retirement, left: recovery.retired?.left ?? [] };
}

/** A provider change finished after an interruption: its app folder and what retiring did. */
export interface FinishedAppChange {
  appDir: string;
  retirement: Retirement;
  left: BranchLeft[];
  /** What was finished, in the words of every repair (folder/journal-replay.ts). */
  notice: string;
}

/**
 * Finishes a provider change interrupted after its import, when `dir` is the app folder or one
 * of its branch folders; undefined when there is none. A change journaled by the previous version
 * of svc (`.svc/app-change.json`) is read once into the crash journal, then finished the same way.
 */
export async function finishAppChange(dir: string): Promise<FinishedAppChange | undefined> {
  const legacy = await findLegacyAppChange(dir);
  if (legacy) await journalRetirement(legacy.appDir, await fromLegacy(legacy), LEGACY_APP_CHANGE);
  const pending = await pendingRetirement(dir);
  if (pending === undefined) return undefined;
  const recovery = await recoverFolder(pending.appDir);
  return {
    appDir: pending.appDir,
    retirement: pending.retire,
    left: recovery.retired?.left ?? [],
    notice: recovery.notice,
  };
}

interface FoundLegacy {
  appDir: string;
  journal: LegacyAppChange;
}

/** `dir`'s own `.svc/app-change.json`, or its parent's when it names `dir` as a branch folder. */
export async function findLegacyAppChange(dir: string): Promise<FoundLegacy | undefined> {
  const read = async (appDir: string) => {
    const journal = await readLegacyAppChange(appDir);
    return journal && { appDir, journal };
  };
  const own = await read(dir);
  if (own || !isBranchName(path.basename(dir))) return own;
  const found = await read(path.dirname(dir));
  return found?.journal.branches.includes(path.basename(dir)) ? found : undefined;
}

/** The previous format named branch folders only: which files in them are svc's is decided now. */
async function fromLegacy({ appDir, journal }: FoundLegacy): Promise<Retirement> {
  const branches: RetiredBranch[] = [];
  for (const name of journal.branches) {
    const dir = await realBranchDir(appDir, name);
    branches.push(retiredBranch(name, dir === undefined ? {} : await readFolder(dir)));
  }
  return { ...journal, branches };
}
