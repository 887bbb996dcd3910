/**
 * A provider change of an app in branch folders is two steps: the import into the app folder,
 * then the retiring of the branch folders. A process killed between them would leave the branch
 * folders whole beside the new server, and nothing would say the change was half done. So the
 * import writes this journal into the app folder's `.svc/` in the same atomic write as the new
 * server; retiring deletes it last. `svc source set` on the app folder (or one of its branch
 * folders) finds it and finishes the retiring before anything else.
 */
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { type BranchLeft, type KeptFiles, realBranchDir, retireBranchFolders } from './branch-folders.js';
import { unsafePathReason } from './folder-paths.js';
import { readFolder } from './read-folder.js';
import { restoreModes } from './user-files.js';

/** The journal's path in the app folder ('/'-separated, as in FolderFiles). */
export const APP_CHANGE_JOURNAL = '.svc/app-change.json';

export interface AppChangeJournal {
  /** The branch folders to retire, by name (`live`, `main`, `version-<id>`). */
  branches: string[];
  /** The branch folder whose own files move to the app folder. */
  primary: string;
  /** The primary's files the import already wrote into the app folder. */
  carried: string[];
  /** The modes of the user's files in the app folder (the writer creates files afresh). */
  modes: Record<string, number>;
}

/** The journal's text: sorted keys and lists, so the same change writes the same bytes. */
export function renderJournal(journal: AppChangeJournal): string {
  const modes = Object.fromEntries(Object.entries(journal.modes).sort(([a], [b]) => (a < b ? -1 : 1)));
  return `${JSON.stringify(
    {
      branches: [...journal.branches].sort(),
      primary: journal.primary,
      carried: [...journal.carried].sort(),
      modes,
    },
    null,
    2,
  )}\n`;
}

export function parseJournal(text: string, file: string): AppChangeJournal {
  const damaged = () =>
    new SvcError(
      'FOLDER_INVALID',
      "the journal of an interrupted provider change is damaged; delete the branch folders' config.yaml, Tools/ and .svc/ by hand, then this file",
      { place: { file } },
    );
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw damaged();
  }
  const j = value as Partial<AppChangeJournal>;
  const names = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');
  // Every name stays inside the app folder (a branch folder directly in it): a journal is a file in
  // the repository, so one crafted to point elsewhere must not make svc delete or chmod anything there.
  const inside = (p: string) => unsafePathReason(p) === undefined;
  const plain = (s: string) => BRANCH_FOLDER.test(s);
  if (
    !names(j.branches) ||
    !j.branches.every(plain) ||
    typeof j.primary !== 'string' ||
    !plain(j.primary) ||
    !names(j.carried) ||
    typeof j.modes !== 'object' ||
    j.modes === null ||
    Array.isArray(j.modes) ||
    !Object.entries(j.modes).every(([p, m]) => inside(p) && Number.isInteger(m) && m >= 0 && m <= 0o7777)
  )
    throw damaged();
  return j as AppChangeJournal;
}

/** The only names a branch folder has (app-builder-urls.ts: branchFolder). */
const BRANCH_FOLDER = /^(live|main|version-[a-z0-9][a-z0-9_-]*)$/;

/** A journal found, and the app folder it sits in. */
export interface FoundAppChange {
  appDir: string;
  journal: AppChangeJournal;
}

/**
 * The journal of an interrupted provider change that speaks for `dir`: `dir`'s own, or its
 * parent's when `dir` is one of the branch folders that journal names (a journal beside other
 * servers does not speak for them). Undefined when there is none.
 */
export async function findAppChange(dir: string): Promise<FoundAppChange | undefined> {
  const own = (at: string) => path.join(at, ...APP_CHANGE_JOURNAL.split('/'));
  const read = async (appDir: string) => ({
    appDir,
    journal: parseJournal(await readFile(own(appDir), 'utf8'), own(appDir)),
  });
  if (existsSync(own(dir))) return await read(dir);
  const parent = path.dirname(dir);
  if (!BRANCH_FOLDER.test(path.basename(dir)) || !existsSync(own(parent))) return undefined;
  const found = await read(parent);
  return found.journal.branches.includes(path.basename(dir)) ? found : undefined;
}

/**
 * Retires the branch folders named in `journal` (those still there), gives the user's files in
 * the app folder their modes back, and deletes the journal last: killed again on the way, the
 * next run does the rest. `keptFiles` tells the user's files from svc's.
 */
export async function retireAppBranches(
  appDir: string,
  journal: AppChangeJournal,
  keptFiles: KeptFiles,
): Promise<BranchLeft[]> {
  const modes = new Map<string, number>();
  for (const [p, mode] of Object.entries(journal.modes))
    if (existsSync(path.join(appDir, ...p.split('/')))) modes.set(p, mode);
  await restoreModes(appDir, modes);
  const branches = [];
  for (const name of journal.branches) {
    const dir = await realBranchDir(appDir, name);
    if (dir !== undefined) branches.push({ dir, files: await readFolder(dir) });
  }
  const left = await retireBranchFolders(
    { appDir, branches, primaryDir: path.join(appDir, journal.primary) },
    new Set(journal.carried),
    keptFiles,
  );
  await rm(path.join(appDir, ...APP_CHANGE_JOURNAL.split('/')), { force: true });
  return left;
}
