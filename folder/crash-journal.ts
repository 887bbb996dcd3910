/**
 * The crash journal: the one record of a write that must not be seen half done. A write of a
 * server folder is a transaction: the folder's staged → live swap (folder 1), then, for a provider
 * change of an app in branch folders, the retiring of its branch folders (folders 2..N). Whatever
 * of it a crash interrupts is finished by the next svc command that opens the folder
 * (journal-replay.ts: `recoverLocked`), so the folder is only ever seen wholly old or wholly new.
 *
 * The swap: the writer builds the new folder in `.<folder>.svc-new-*` and fsyncs it, creates
 * `.<folder>.svc-old-*`, and then writes the journal `.<folder>.svc-swap` (to a temporary name,
 * fsynced, renamed: it is there whole or not at all). The journal names both directories and
 * every entry to move, with whether it exists in the old and in the new version, and the branch
 * folders to retire once the swap is in. Only then are entries moved, in the journal's order. When
 * all are moved the journal is rewritten as "done" (the commit point); the two directories are
 * removed; the journal is rewritten without its swap while branch folders remain to retire, and
 * removed last.
 *
 * Whoever finds a journal, holding the folder lock, replays it: "forward" finishes the moves and
 * then the retiring, "back" (written by a writer undoing its own failed swap) puts the old entries
 * back and retires nothing, "done" removes what is left and retires. Each step checks the disk
 * first, so a replay is idempotent and a crash during recovery is recovered the same way.
 *
 * On disk: `version: 2`. Version 1 (a swap alone, written by svc before the journals were one) is
 * read as a version 2 journal with nothing to retire. The previous version's provider-change
 * journal, `.svc/app-change.json` inside the app folder, names no file and needs the provider
 * change's rule to be read (generator/import/app-change.ts reads it once, into this format).
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { renameSynced, syncDir, writeFileSynced } from './durable-fs.js';
import { lockLeftover, lockPathOf } from './folder-lock.js';
import { unsafePathReason } from './folder-paths.js';
import { folderTarget } from './settle-folder.js';

export interface SwapEntry {
  /** A top-level managed entry, or an unmanaged file's '/' path. */
  path: string;
  /** Whether the old folder has it (it is set aside) and the new one (it is moved in). */
  old: boolean;
  new: boolean;
}

/** Folder 1 of a transaction: the swap of the folder's entries. */
export interface FolderSwap {
  /** Names (not paths) of the temporary directories beside the folder. */
  newDir: string;
  oldDir: string;
  entries: SwapEntry[];
  /** Directories the swap creates in the folder (parents of new unmanaged files), outermost first. */
  dirs: string[];
}

/** One branch folder of the app folder that a provider change retires. */
export interface RetiredBranch {
  /** Its name (`live`, `main`, `version-<id>`): a directory directly in the app folder. */
  name: string;
  /** The files svc wrote there ('/' paths): they go. Every other file is the user's and stays or moves. */
  svcFiles: string[];
}

/** Folders 2..N of a transaction: the branch folders retired once the app folder's swap is in. */
export interface Retirement {
  branches: RetiredBranch[];
  /** The branch folder whose own files move to the app folder. */
  primary: string;
  /** The primary's files the swap already wrote into the app folder. */
  carried: string[];
  /** The modes of the user's files in the app folder (the writer creates files afresh). */
  modes: Record<string, number>;
}

export interface CrashJournal {
  version: 2;
  state: 'forward' | 'back' | 'done';
  /** Absent once the swap is finished and only the retiring is left. */
  swap?: FolderSwap;
  retire?: Retirement;
}

/** Called before each step; a test hook that may throw (that step fails) or stop the process. */
export type StepHook = (name: string) => Promise<void>;

export const NEW_PREFIX = 'svc-new-';
export const OLD_PREFIX = 'svc-old-';

export function journalPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.svc-swap`);
}

/** The temporary directory names mkdtemp makes beside the folder (six random characters). */
export function tempDirPattern(target: string): RegExp {
  const base = basename(target).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`^\\.${base}\\.(svc-new|svc-old)-[A-Za-z0-9]{6}$`);
}

/**
 * Whether anything a write leaves behind when it is killed (a journal, a temporary directory,
 * its lock) is beside the folder.
 */
export async function hasSwapLeftovers(target: string): Promise<boolean> {
  const names = await readdir(dirname(target)).catch(() => [] as string[]);
  const journal = basename(journalPathOf(target));
  const lock = basename(lockPathOf(target));
  const pattern = tempDirPattern(target);
  return names.some(
    (n) =>
      n === journal ||
      n === `${journal}.tmp` ||
      n === lock ||
      pattern.test(n) ||
      lockLeftover(target, n) !== undefined,
  );
}

/**
 * Whether entries are being moved (or were, by a writer that crashed): a journal that is not
 * "done". Once it is done the folder is wholly new; only temporary directories remain to remove.
 */
export async function swapUnfinished(target: string): Promise<boolean> {
  const text = await readFile(journalPathOf(target), 'utf8').catch(() => undefined);
  if (text === undefined) return false;
  try {
    return (JSON.parse(text) as Partial<CrashJournal>).state !== 'done';
  } catch {
    return true;
  }
}

export async function writeJournal(target: string, journal: CrashJournal): Promise<void> {
  const path = journalPathOf(target);
  const temp = `${path}.tmp`;
  await rm(temp, { force: true });
  await writeFileSynced(temp, `${JSON.stringify(journal)}\n`);
  await renameSynced(temp, path);
}

/** Deletes the journal (durably): after this, nothing is left to replay. */
export async function removeJournal(target: string): Promise<void> {
  await rm(journalPathOf(target), { force: true });
  await syncDir(dirname(target));
}

/** The folder's journal, read in either version; undefined when there is none. */
export async function readJournal(target: string): Promise<CrashJournal | undefined> {
  const path = journalPathOf(target);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw damaged(path, e);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw damaged(path, e);
  }
  const journal = asJournal(value, target);
  if (journal === undefined) throw damaged(path);
  return journal;
}

/** A journal names what to rename and delete: anything but this writer's own names is refused. */
function asJournal(value: unknown, target: string): CrashJournal | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const j = value as Record<string, unknown>;
  if (j.state !== 'forward' && j.state !== 'back' && j.state !== 'done') return undefined;
  if (j.version === 1) {
    // Version 1: the swap's fields at the top, nothing to retire.
    const { version: _v, state: _s, ...swap } = j;
    return isSwap(swap, target) ? { version: 2, state: j.state, swap } : undefined;
  }
  if (j.version !== 2) return undefined;
  if (j.swap !== undefined && !isSwap(j.swap, target)) return undefined;
  if (j.retire !== undefined && !isRetirement(j.retire)) return undefined;
  return j as unknown as CrashJournal;
}

const safe = (p: unknown) => typeof p === 'string' && unsafePathReason(p) === undefined;
const strings = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

function isSwap(value: unknown, target: string): value is FolderSwap {
  const s = value as Partial<FolderSwap> | null;
  if (typeof s !== 'object' || s === null) return false;
  const pattern = tempDirPattern(target);
  if (typeof s.newDir !== 'string' || !pattern.test(s.newDir) || !s.newDir.includes(`.${NEW_PREFIX}`))
    return false;
  if (typeof s.oldDir !== 'string' || !pattern.test(s.oldDir) || !s.oldDir.includes(`.${OLD_PREFIX}`))
    return false;
  if (!Array.isArray(s.dirs) || !s.dirs.every(safe)) return false;
  return (
    Array.isArray(s.entries) &&
    s.entries.every(
      (e: Partial<SwapEntry>) =>
        typeof e === 'object' && safe(e.path) && typeof e.old === 'boolean' && typeof e.new === 'boolean',
    )
  );
}

/** The only names a branch folder has (app-builder-urls.ts: branchFolder). */
const BRANCH_FOLDER = /^(live|main|version-[a-z0-9][a-z0-9_-]*)$/;

export function isBranchName(name: string): boolean {
  return BRANCH_FOLDER.test(name);
}

/**
 * Every name stays inside the app folder (a branch folder directly in it, files below it): the
 * previous version kept this record in the repository, so one crafted to point elsewhere must not
 * make svc delete, move or chmod anything there.
 */
function isRetirement(value: unknown): value is Retirement {
  const r = value as Partial<Retirement> | null;
  if (typeof r !== 'object' || r === null) return false;
  const modes = r.modes;
  return (
    Array.isArray(r.branches) &&
    r.branches.every(
      (b: Partial<RetiredBranch>) =>
        typeof b === 'object' &&
        b !== null &&
        typeof b.name === 'string' &&
        isBranchName(b.name) &&
        strings(b.svcFiles) &&
        b.svcFiles.every(safe),
    ) &&
    typeof r.primary === 'string' &&
    isBranchName(r.primary) &&
    strings(r.carried) &&
    r.carried.every(safe) &&
    typeof modes === 'object' &&
    modes !== null &&
    !Array.isArray(modes) &&
    Object.entries(modes).every(([p, m]) => safe(p) && Number.isInteger(m) && m >= 0 && m <= 0o7777)
  );
}

/** What a person can do about a damaged journal, by what it records. */
const BY_HAND = {
  swap: 'the old entries are in the .svc-old-* directory beside the folder and the new ones in .svc-new-*',
  retire: "delete the branch folders' config.yaml, Tools/ and .svc/ by hand, then this file",
};

/** The one wording of a journal that cannot be replayed. */
function damaged(path: string, cause?: unknown, byHand: string = BY_HAND.swap): SvcError {
  return new SvcError(
    'FOLDER_INVALID',
    `the crash journal ${path} is damaged, so an interrupted write cannot be finished; ${byHand}`,
    { place: { file: path }, cause },
  );
}

/** The previous version's provider-change journal, in the app folder ('/'-separated, as in FolderFiles). */
export const LEGACY_APP_CHANGE = '.svc/app-change.json';

/** What the previous version recorded of a provider change: branch folders by name, no files. */
export interface LegacyAppChange {
  branches: string[];
  primary: string;
  carried: string[];
  modes: Record<string, number>;
}

/** `appDir`'s `.svc/app-change.json`, read once by the provider change's rules; undefined when there is none. */
export async function readLegacyAppChange(appDir: string): Promise<LegacyAppChange | undefined> {
  const file = join(appDir, ...LEGACY_APP_CHANGE.split('/'));
  const text = await readFile(file, 'utf8').catch(() => undefined);
  return text === undefined ? undefined : parseLegacyAppChange(text, file);
}

/** Reads a `.svc/app-change.json`, refusing one that names anything outside the app folder. */
export function parseLegacyAppChange(text: string, file: string): LegacyAppChange {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined;
  }
  const j = value as Partial<LegacyAppChange> | undefined;
  const asRetirement = j && {
    ...j,
    branches: strings(j.branches) ? j.branches.map((name) => ({ name, svcFiles: [] })) : j.branches,
  };
  if (asRetirement === undefined || !isRetirement(asRetirement))
    throw damaged(file, undefined, BY_HAND.retire);
  return j as LegacyAppChange;
}

/** A provider change whose branch folders are still to retire, and the app folder it belongs to. */
export interface PendingRetirement {
  appDir: string;
  retire: Retirement;
}

/**
 * The journal with branch folders still to retire that speaks for `dir`: `dir`'s own, or its
 * parent's when `dir` is one of the branch folders it names (a journal beside other servers does
 * not speak for them). Undefined when there is none.
 */
export async function pendingRetirement(dir: string): Promise<PendingRetirement | undefined> {
  const own = await retirementOf(dir);
  if (own) return { appDir: dir, retire: own };
  const parent = dirname(dir);
  if (!isBranchName(basename(dir))) return undefined;
  const theirs = await retirementOf(parent);
  return theirs?.branches.some((b) => b.name === basename(dir))
    ? { appDir: parent, retire: theirs }
    : undefined;
}

async function retirementOf(dir: string): Promise<Retirement | undefined> {
  const journal = await readJournal(await folderTarget(dir));
  return journal?.state === 'back' ? undefined : journal?.retire;
}
