/**
 * The swap journal: a crash while a new folder is being swapped in is finished by the next svc
 * command that opens the folder, so the folder is only ever seen wholly old or wholly new.
 *
 * The writer builds the new folder in `.<folder>.svc-new-*` and fsyncs it, creates
 * `.<folder>.svc-old-*`, and then writes the journal `.<folder>.svc-swap` (to a temporary
 * name, fsynced, renamed: it is there whole or not at all). The journal names both directories
 * and every entry to move, with whether it exists in the old and in the new version. Only then
 * are entries moved, in the journal's order: each old one into the old directory, each new one
 * out of the new directory, every rename fsynced before the next. When all are moved the
 * journal is rewritten as "done" (the commit point); the two directories are removed, then the
 * journal.
 *
 * Whoever finds a journal, holding the folder lock, replays it: "forward" finishes the moves,
 * "back" (written by a writer undoing its own failed swap) puts the old entries back, "done"
 * removes what is left. Each move checks the disk first, so a replay is idempotent and a crash
 * during recovery is recovered the same way. Without a journal nothing in the folder was
 * touched, and the temporary directories beside it are removed.
 */
import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { mkdirSynced, present, renameSynced, syncDir, writeFileSynced } from './durable-fs.js';
import { lockLeftover, lockPathOf } from './folder-lock.js';
import { unsafePathReason } from './folder-paths.js';

export interface SwapEntry {
  /** A top-level managed entry, or an unmanaged file's '/' path. */
  path: string;
  /** Whether the old folder has it (it is set aside) and the new one (it is moved in). */
  old: boolean;
  new: boolean;
}

export interface SwapJournal {
  version: 1;
  state: 'forward' | 'back' | 'done';
  /** Names (not paths) of the temporary directories beside the folder. */
  newDir: string;
  oldDir: string;
  entries: SwapEntry[];
  /** Directories the swap creates in the folder (parents of new unmanaged files), outermost first. */
  dirs: string[];
}

/** Called before each step; a test hook that may throw (that step fails) or stop the process. */
export type StepHook = (name: string) => Promise<void>;

const noStep: StepHook = async () => {};

export const NEW_PREFIX = 'svc-new-';
export const OLD_PREFIX = 'svc-old-';

export function journalPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.svc-swap`);
}

/** The temporary directory names mkdtemp makes beside the folder (six random characters). */
function tempDirPattern(target: string): RegExp {
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
    return (JSON.parse(text) as Partial<SwapJournal>).state !== 'done';
  } catch {
    return true;
  }
}

export async function writeJournal(target: string, journal: SwapJournal): Promise<void> {
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

/** Moves every entry the journal names from the old version to the new one. */
export async function rollForward(target: string, journal: SwapJournal, step: StepHook = noStep) {
  const { newRoot, oldRoot } = roots(target, journal);
  for (const dir of journal.dirs) await mkdirSynced(target, dir);
  for (const entry of journal.entries) {
    const parts = entry.path.split('/');
    const current = join(target, ...parts);
    const aside = join(oldRoot, ...parts);
    const fresh = join(newRoot, ...parts);
    // Once the new entry has left the new directory, this entry is done.
    if (entry.new && !(await present(fresh))) continue;
    if (entry.old && !(await present(aside)) && (await present(current))) {
      await step(`set aside ${entry.path}`);
      await mkdirSynced(oldRoot, parts.slice(0, -1).join('/'));
      await renameSynced(current, aside);
    }
    if (entry.new) {
      await step(`swap ${entry.path}`);
      await renameSynced(fresh, current);
    }
  }
}

/** Puts every old entry back and the new ones into the new directory, last moved first. */
export async function rollBack(target: string, journal: SwapJournal): Promise<void> {
  const { newRoot, oldRoot } = roots(target, journal);
  for (const entry of [...journal.entries].reverse()) {
    const parts = entry.path.split('/');
    const current = join(target, ...parts);
    const aside = join(oldRoot, ...parts);
    const fresh = join(newRoot, ...parts);
    if (entry.new && !(await present(fresh)) && (await present(current))) {
      await mkdirSynced(newRoot, parts.slice(0, -1).join('/'));
      await renameSynced(current, fresh);
    }
    if (entry.old && (await present(aside))) await renameSynced(aside, current);
  }
  // Only directories the swap created and that are empty again: never anything of the user's.
  for (const dir of [...journal.dirs].reverse()) await removeIfEmpty(join(target, ...dir.split('/')));
}

async function removeIfEmpty(dir: string): Promise<void> {
  const removed = await rmdir(dir).then(
    () => true,
    () => false,
  );
  if (removed) await syncDir(dirname(dir));
}

/**
 * After the commit point (or after undoing): the temporary directories go, then the journal.
 * The "done" state is written first, so a crash while removing them finishes the removal.
 */
export async function finishSwap(target: string, journal: SwapJournal, step: StepHook = noStep) {
  if (journal.state !== 'done') await writeJournal(target, { ...journal, state: 'done' });
  await step('clean');
  const { newRoot, oldRoot } = roots(target, journal);
  await rm(newRoot, { recursive: true, force: true });
  await rm(oldRoot, { recursive: true, force: true });
  await removeJournal(target);
}

/**
 * Finishes whatever an interrupted writer left beside the folder. The caller holds the lock.
 * Returns what was done, for a notice ("" when there was nothing).
 */
export async function recoverLocked(target: string): Promise<string> {
  let done = '';
  const journal = await readJournal(target);
  if (journal !== undefined) {
    const { newRoot } = roots(target, journal);
    if (journal.state !== 'done' && !(await present(newRoot))) {
      // Only a writer that failed before its first move removes the new folder (after its
      // journal, but a person may have removed it too): replay nothing, delete nothing old.
      await removeJournal(target);
      done = 'removed the journal of a swap whose new folder is gone';
    } else {
      if (journal.state === 'forward') {
        await rollForward(target, journal);
        done = 'finished an interrupted swap: the folder now holds the new version';
      } else if (journal.state === 'back') {
        await rollBack(target, journal);
        done = 'finished undoing a failed swap: the folder holds the old version';
      }
      await finishSwap(target, journal);
    }
  }
  await removeStrays(target);
  return done;
}

/**
 * Without a journal nothing inside the folder was touched: a new directory is an unfinished
 * build and goes. An old directory made by this version is empty then; a non-empty one was left
 * by an older svc (which kept the only copy of moved-out files there) and stays for a person.
 */
async function removeStrays(target: string): Promise<void> {
  const parent = dirname(target);
  const pattern = tempDirPattern(target);
  const journal = basename(journalPathOf(target));
  for (const name of await readdir(parent).catch(() => [] as string[])) {
    const full = join(parent, name);
    if (name === `${journal}.tmp`) await rm(full, { force: true });
    else if (pattern.test(name) && name.includes(`.${NEW_PREFIX}`))
      await rm(full, { recursive: true, force: true });
    else if (pattern.test(name)) await rmdir(full).catch(() => undefined);
  }
}

async function readJournal(target: string): Promise<SwapJournal | undefined> {
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
  if (!isJournal(value, target)) throw damaged(path);
  return value;
}

/** A journal names what to rename and delete: anything but this writer's own names is refused. */
function isJournal(value: unknown, target: string): value is SwapJournal {
  const j = value as Partial<SwapJournal> | null;
  if (typeof j !== 'object' || j === null || j.version !== 1) return false;
  if (j.state !== 'forward' && j.state !== 'back' && j.state !== 'done') return false;
  const pattern = tempDirPattern(target);
  if (typeof j.newDir !== 'string' || !pattern.test(j.newDir) || !j.newDir.includes(`.${NEW_PREFIX}`))
    return false;
  if (typeof j.oldDir !== 'string' || !pattern.test(j.oldDir) || !j.oldDir.includes(`.${OLD_PREFIX}`))
    return false;
  const safe = (p: unknown) => typeof p === 'string' && unsafePathReason(p) === undefined;
  if (!Array.isArray(j.dirs) || !j.dirs.every(safe)) return false;
  return (
    Array.isArray(j.entries) &&
    j.entries.every(
      (e: Partial<SwapEntry>) =>
        typeof e === 'object' && safe(e.path) && typeof e.old === 'boolean' && typeof e.new === 'boolean',
    )
  );
}

function damaged(path: string, cause?: unknown): SvcError {
  return new SvcError(
    'FOLDER_INVALID',
    `the swap journal ${path} is damaged, so an interrupted write cannot be finished; the old entries are in the .svc-old-* directory beside the folder and the new ones in .svc-new-*`,
    { place: { file: path }, cause },
  );
}

function roots(target: string, journal: SwapJournal): { newRoot: string; oldRoot: string } {
  return { newRoot: join(dirname(target), journal.newDir), oldRoot: join(dirname(target), journal.oldDir) };
}
