/**
 * Replays the crash journal (crash-journal.ts): the writer itself, moving entries and undoing a
 * failed swap, and `recoverLocked`, the one recovery routine that the next command runs, holding
 * the folder lock, on whatever an interrupted writer left beside the folder.
 */
import { readdir, rm, rmdir } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { type BranchLeft, realBranchDir, retireBranchFolders } from './branch-folders.js';
import {
  type CrashJournal,
  type FolderSwap,
  journalPathOf,
  NEW_PREFIX,
  readJournal,
  type Retirement,
  removeJournal,
  type StepHook,
  tempDirPattern,
  writeJournal,
} from './crash-journal.js';
import { mkdirSynced, present, renameSynced, syncDir } from './durable-fs.js';
import { readFolder } from './read-folder.js';
import { restoreModes } from './user-files.js';

const noStep: StepHook = async () => {};

/** Moves every entry the swap names from the old version to the new one. */
export async function rollForward(target: string, swap: FolderSwap, step: StepHook = noStep) {
  const { newRoot, oldRoot } = roots(target, swap);
  for (const dir of swap.dirs) await mkdirSynced(target, dir);
  for (const entry of swap.entries) {
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
export async function rollBack(target: string, swap: FolderSwap): Promise<void> {
  const { newRoot, oldRoot } = roots(target, swap);
  for (const entry of [...swap.entries].reverse()) {
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
  for (const dir of [...swap.dirs].reverse()) await removeIfEmpty(join(target, ...dir.split('/')));
}

async function removeIfEmpty(dir: string): Promise<void> {
  const removed = await rmdir(dir).then(
    () => true,
    () => false,
  );
  if (removed) await syncDir(dirname(dir));
}

/**
 * After the commit point (or after undoing): the temporary directories go, then the journal, or,
 * when branch folders remain to retire, the journal's swap (an undone swap retires nothing). The
 * "done" state is written first, so a crash while removing them finishes the removal.
 */
export async function finishSwap(target: string, journal: CrashJournal, step: StepHook = noStep) {
  const retire = journal.state === 'back' ? undefined : journal.retire;
  if (journal.state !== 'done')
    await writeJournal(target, {
      version: 2,
      state: 'done',
      ...(journal.swap ? { swap: journal.swap } : {}),
      ...(retire ? { retire } : {}),
    });
  await step('clean');
  if (journal.swap) {
    const { newRoot, oldRoot } = roots(target, journal.swap);
    await rm(newRoot, { recursive: true, force: true });
    await rm(oldRoot, { recursive: true, force: true });
  }
  if (!retire) await removeJournal(target);
  else if (journal.swap) await writeJournal(target, { version: 2, state: 'done', retire });
}

/** What a recovery did: a notice ("" when nothing), and the branch folders it retired. */
export interface Recovery {
  notice: string;
  retired?: { retirement: Retirement; left: BranchLeft[] };
}

/**
 * Finishes whatever an interrupted writer left beside the folder: the swap, then the retiring of
 * branch folders. The caller holds the lock.
 */
export async function recoverLocked(target: string, step: StepHook = noStep): Promise<Recovery> {
  const notices: string[] = [];
  let retired: Recovery['retired'];
  const journal = await readJournal(target);
  if (journal !== undefined) {
    const swap = journal.swap;
    if (swap && journal.state !== 'done' && !(await present(roots(target, swap).newRoot))) {
      // Only a writer that failed before its first move removes the new folder (after its
      // journal, but a person may have removed it too): replay nothing, delete nothing old.
      await removeJournal(target);
      notices.push(NOTICES.gone);
    } else {
      if (swap && journal.state === 'forward') {
        await rollForward(target, swap);
        notices.push(NOTICES.forward);
      } else if (swap && journal.state === 'back') {
        await rollBack(target, swap);
        notices.push(NOTICES.back);
      }
      await finishSwap(target, journal);
      if (journal.retire && journal.state !== 'back') {
        retired = { retirement: journal.retire, left: await retire(target, journal.retire, step) };
        notices.push(retiredNotice(retired.retirement, retired.left));
      }
    }
  }
  await removeStrays(target);
  return { notice: notices.join('; '), ...(retired ? { retired } : {}) };
}

/** The one wording of every repair: each says what the folder holds now. */
const NOTICES = {
  gone: 'removed the journal of a swap whose new folder is gone',
  forward: 'finished an interrupted swap: the folder now holds the new version',
  back: 'finished undoing a failed swap: the folder holds the old version',
};

function retiredNotice(retirement: Retirement, left: BranchLeft[]): string {
  const names = retirement.branches.map((b) => `${b.name}/`).join(', ');
  const kept = left.map((l) => `${l.name}/`).join(', ');
  return `finished an interrupted provider change: the branch folders ${names} are retired${kept ? ` (${kept} ${left.length === 1 ? 'keeps' : 'keep'} files of yours)` : ''}`;
}

/**
 * Retires the branch folders `retirement` names (those still there): svc's files go, the
 * primary's own files move to the app folder, the user's files in the app folder get their modes
 * back; the journal goes last, so a run killed on the way is finished by the next.
 */
async function retire(appDir: string, retirement: Retirement, step: StepHook): Promise<BranchLeft[]> {
  const modes = new Map<string, number>();
  for (const [p, mode] of Object.entries(retirement.modes))
    if (await present(join(appDir, ...p.split('/')))) modes.set(p, mode);
  await restoreModes(appDir, modes);
  // Every branch folder is checked before any is touched (a symbolic link refuses them all).
  const dirs = [];
  for (const b of retirement.branches) dirs.push(await realBranchDir(appDir, b.name));
  const left: BranchLeft[] = [];
  for (const [i, b] of retirement.branches.entries()) {
    // One at a time, each read just before it goes: a replay after a crash between two of them
    // finds the first one retired already.
    await step(`retire ${b.name}`);
    const dir = dirs[i];
    if (dir === undefined) continue;
    const branch = { dir, files: await readFolder(dir), svcFiles: new Set(b.svcFiles) };
    const layout = { appDir, branches: [branch], primaryDir: join(appDir, retirement.primary) };
    left.push(...(await retireBranchFolders(layout, new Set(retirement.carried))));
  }
  await removeJournal(appDir);
  return left;
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

function roots(target: string, swap: FolderSwap): { newRoot: string; oldRoot: string } {
  return { newRoot: join(dirname(target), swap.newDir), oldRoot: join(dirname(target), swap.oldDir) };
}
