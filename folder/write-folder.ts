/**
 * FolderFiles → disk, atomically. The complete new set of files is built in a temporary
 * sibling directory (same parent, so renames stay on one filesystem) and fsynced; only then is
 * it swapped in by renames under a journal (crash-journal.ts), so that a failure puts every old
 * entry back, and a crash (kill -9, power loss) at any step is finished by the next command
 * that opens the folder: the folder is seen wholly old or wholly new.
 *
 * Managed paths (config.yaml, README.md, docker-compose.yml, .env.example, Tools/, Skills/,
 * Prompts/, Resources/, Docs/, Widgets/, .svc/) become exactly `files`: a managed top-level
 * entry is replaced as a whole. Anything else on disk (a .git directory, .env, a user's notes)
 * is preserved; an unmanaged path that `files` does name is written too, unless its bytes are
 * already on disk (so a read-modify-write of the whole folder leaves a .env and its mode alone).
 * A file written where one was keeps that file's permission bits: a user's script in Skills/ stays
 * executable through an import (FolderFiles carry text, not modes).
 * The folder directory itself keeps its identity, so a runtime watching it sees the change.
 */
import { chmod, link, lstat, mkdir, mkdtemp, open, readFile, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { isUtf8 } from 'node:buffer';
import { SvcError } from '../core/svc-error.js';
import { present, renameSynced, syncDir, writeFileSynced } from './durable-fs.js';
import { tryLockFolder } from './folder-lock.js';
import { isManagedPath, MANAGED_TOP, unsafePathReason } from './folder-paths.js';
import type { FolderFiles } from './model.js';
import { folderTarget, warnOnStderr } from './settle-folder.js';
import {
  type CrashJournal,
  type FolderSwap,
  journalPathOf,
  NEW_PREFIX,
  OLD_PREFIX,
  type Retirement,
  removeJournal,
  type StepHook,
  type SwapEntry,
  writeJournal,
} from './crash-journal.js';
import { finishSwap, type Recovery, recoverLocked, rollBack, rollForward } from './journal-replay.js';

export interface WriteFolderOptions {
  /**
   * Called before each filesystem step ("write Tools/x.yaml", "swap Tools", …); a throw makes
   * that step fail. For tests of the failure paths; production code leaves it out.
   */
  beforeStep?: (step: string) => void | Promise<void>;
  /** Told what the writer did besides writing (a stale lock taken over). Default: stderr. */
  onNotice?: (message: string) => void;
  /**
   * Branch folders of this app folder to retire once the swap is in: journaled with the swap and
   * left in the journal, for `recoverFolder` (or whichever command comes next) to retire.
   */
  retire?: Retirement;
}

type Step = (name: string) => Promise<void>;

const WRITE_CONCURRENCY = 16;

/** Runs `fn` over `items`, at most `limit` at a time; the first failure is thrown once its batch settles. */
async function inBatches<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<void>,
): Promise<void> {
  for (let i = 0; i < items.length; i += limit) {
    const results = await Promise.allSettled(items.slice(i, i + limit).map(fn));
    const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failure) throw failure.reason;
  }
}

export async function writeFolder(
  dir: string,
  files: FolderFiles,
  opts: WriteFolderOptions = {},
): Promise<void> {
  for (const path of Object.keys(files)) {
    const reason = unsafePathReason(path);
    if (reason)
      throw new SvcError('WRITE_FAILED', `refused to write "${path}": ${reason}`, { place: { file: path } });
  }
  const step: Step = async (name) => {
    if (opts.beforeStep) await opts.beforeStep(name);
  };

  const parent = dirname(await folderTarget(dir));
  await mkdir(parent, { recursive: true }).catch((e) => {
    throw failed(`cannot create ${parent}`, dir, e);
  });
  await withFolderLock(dir, (target) => writeUnlocked(target, dir, files, step, opts.retire), opts);
}

/**
 * Finishes, under the folder's lock, whatever an interrupted write left (crash-journal.ts), and
 * says what it did, for a caller that reports it itself.
 */
export async function recoverFolder(
  dir: string,
  opts: Pick<WriteFolderOptions, 'onNotice' | 'beforeStep'> = {},
) {
  let recovery: Recovery = { notice: '' };
  const { beforeStep, ...rest } = opts;
  await withFolderLock(dir, async () => undefined, {
    ...rest,
    ...(beforeStep ? { recoveryStep: async (name: string) => beforeStep(name) } : {}),
    onRecovery: (r) => {
      recovery = r;
    },
  });
  return recovery;
}

/**
 * Journals branch folders to retire for a provider change whose swap is in (one recorded in an
 * older format, read by the caller), then removes that older record, `replaced` ('/' path in the
 * folder). `recoverFolder` or the next command retires them.
 */
export async function journalRetirement(dir: string, retire: Retirement, replaced: string): Promise<void> {
  await withFolderLock(dir, async (target) => {
    await writeJournal(target, { version: 2, state: 'done', retire });
    await rm(join(target, ...replaced.split('/')), { force: true });
  });
}

/**
 * Runs `write` as the folder's one writer: under its lock, once any write interrupted earlier is
 * finished, so that it starts from a whole folder. For whoever adds a file to a folder (a failed
 * import's history record) without going through writeFolder.
 */
export async function withFolderLock<T>(
  dir: string,
  write: (target: string) => Promise<T>,
  opts: Pick<WriteFolderOptions, 'onNotice'> & {
    /** Told what the recovery did, instead of a notice. */
    onRecovery?: (r: Recovery) => void;
    /** Called before each step of the recovery (a test's hook). */
    recoveryStep?: StepHook;
  } = {},
): Promise<T> {
  const target = await folderTarget(dir);
  const notice = opts.onNotice ?? warnOnStderr;
  const attempt = await tryLockFolder(target, notice).catch((e) => {
    throw failed(`cannot create the lock beside ${dir}`, dir, e);
  });
  if (!attempt.ok) {
    throw failed(
      `another svc process (${attempt.holder}) is writing this folder; its lock is ${attempt.path}${attempt.remedy ? `. ${attempt.remedy}` : ''}`,
      dir,
    );
  }
  try {
    const recovered = await recoverLocked(target, opts.recoveryStep).catch((e) => {
      if (e instanceof SvcError) throw e;
      throw failed('could not finish the write interrupted before this one; nothing was changed', dir, e);
    });
    if (opts.onRecovery) opts.onRecovery(recovered);
    else if (recovered.notice) notice(`${dir}: ${recovered.notice}`);
    return await write(target);
  } finally {
    await attempt.lock.release();
  }
}

async function writeUnlocked(
  target: string,
  dir: string,
  files: FolderFiles,
  step: Step,
  retire: Retirement | undefined,
): Promise<void> {
  const parent = dirname(target);
  const exists = await stat(target).then(
    (s) => {
      if (!s.isDirectory()) throw failed(`${dir} exists and is not a directory`, dir);
      return true;
    },
    () => false,
  );

  // Unmanaged paths whose bytes are already on disk are left alone entirely.
  const unmanaged: string[] = [];
  for (const path of Object.keys(files).sort()) {
    if (isManagedPath(path)) continue;
    const current = exists
      ? await readFile(join(target, ...path.split('/')), 'utf8').catch(() => undefined)
      : undefined;
    if (current !== files[path]) unmanaged.push(path);
  }
  const changedUnmanaged = new Set(unmanaged);
  const toWrite = Object.keys(files)
    .filter((p) => isManagedPath(p) || changedUnmanaged.has(p))
    .sort();

  const temp = await mkdtemp(join(parent, `.${basename(target)}.${NEW_PREFIX}`)).catch((e) => {
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  // mkdtemp makes 0700; a new folder gets the mode `mkdir` would give it (the umask's), so that a
  // runtime running as another user (the image's `node`) can read what `svc init` wrote.
  if (!exists) {
    await chmod(temp, 0o777 & ~process.umask()).catch(async (e) => {
      await rm(temp, { recursive: true, force: true });
      throw failed(`cannot set the mode of a temporary folder beside ${dir}`, dir, e);
    });
  }
  let current: string | undefined;
  const note = (path: string) => (e: unknown) => {
    current ??= path;
    throw e;
  };
  try {
    const dirs = ancestorsOf(toWrite);
    for (const d of dirs) await mkdir(join(temp, ...d.split('/'))).catch(note(d));
    // A thousand small files: write them several at a time rather than one after another.
    await inBatches(toWrite, WRITE_CONCURRENCY, async (path) => {
      await step(`write ${path}`).catch(note(path));
      const text = files[path] as string;
      const dest = join(temp, ...path.split('/'));
      const { bytes, mode, same } = exists ? await onDisk(target, path, text) : { bytes: text };
      // A file whose bytes do not change (most of a re-import) is linked, not copied: the same
      // inode, so the same bytes and mode, and nothing to write; its name is durable with its directory.
      if (same && (await linkFile(same, dest).catch(note(path)))) return;
      await writeFileSynced(dest, bytes, 'wx', mode).catch(note(path));
    });
    // Each file is fsynced; its directory entry is durable once its directory is.
    await inBatches([...dirs, ''], WRITE_CONCURRENCY, (d) => syncDir(join(temp, ...d.split('/'))));
  } catch (e) {
    await rm(temp, { recursive: true, force: true });
    throw failed(`could not write ${current ?? 'the new folder'}; nothing was changed`, dir, e, current);
  }

  if (!exists && retire === undefined) {
    try {
      await step('rename new folder');
      // One rename, durable once the parent is fsynced: the folder appears whole or not at all.
      await renameSynced(temp, target);
      return;
    } catch (e) {
      await rm(temp, { recursive: true, force: true });
      throw failed('could not move the new folder into place; nothing was changed', dir, e);
    }
  }
  // A transaction with branch folders to retire always goes through the journal.
  if (!exists) await mkdir(target);
  await swap({ target, temp, unmanaged, dir, retire }, step);
}

interface SwapInput {
  target: string;
  temp: string;
  unmanaged: readonly string[];
  dir: string;
  retire: Retirement | undefined;
}

/**
 * Swaps the entries of `temp` into `target` under a journal (see crash-journal.ts). A failure
 * undoes the moves made so far; what cannot be undone now stays journaled, and the next
 * command that opens the folder finishes undoing it.
 */
async function swap({ target, temp, unmanaged, dir, retire }: SwapInput, step: Step) {
  const old = await mkdtemp(join(dirname(target), `.${basename(target)}.${OLD_PREFIX}`)).catch(async (e) => {
    await rm(temp, { recursive: true, force: true });
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  const swap: FolderSwap = {
    newDir: basename(temp),
    oldDir: basename(old),
    entries: await plannedEntries(target, temp, unmanaged),
    dirs: await missingDirs(target, unmanaged),
  };
  const journal: CrashJournal = { version: 2, state: 'forward', swap, ...(retire ? { retire } : {}) };
  try {
    await step('journal');
    await writeJournal(target, journal);
  } catch (e) {
    // Nothing was moved. The journal goes first: a journal naming removed directories must not stay.
    const removed = await removeJournal(target).then(
      () => true,
      () => false,
    );
    if (!removed) {
      throw failed(
        `could not record the swap, nor remove its journal ${journalPathOf(target)}; the next svc command that opens the folder will complete the swap`,
        dir,
        e,
      );
    }
    await rm(temp, { recursive: true, force: true });
    await rm(old, { recursive: true, force: true });
    throw failed('could not record the swap; nothing was changed', dir, e);
  }
  try {
    await rollForward(target, swap, step);
    await step('commit');
  } catch (e) {
    const back: CrashJournal = { ...journal, state: 'back' };
    try {
      await writeJournal(target, back);
      await rollBack(target, swap);
      await finishSwap(target, back);
    } catch (undo) {
      throw failed(
        `the swap failed and could not be undone yet (${(undo as NodeJS.ErrnoException).code ?? (undo as Error).message}); the next svc command that opens the folder will finish it as its journal ${journalPathOf(target)} says`,
        dir,
        e,
      );
    }
    throw failed('could not swap the new files in; the folder was restored unchanged', dir, e);
  }
  // Committed: the folder is wholly new. A failure while removing the temporary directories
  // leaves them (and a "done" journal) for the next command to remove; branch folders to
  // retire stay in the journal (journal-replay.ts: finishSwap).
  await finishSwap(target, journal, step).catch(() => undefined);
}

/** Every entry the swap may move, in order, with which versions have it. */
async function plannedEntries(target: string, temp: string, unmanaged: readonly string[]) {
  const entries: SwapEntry[] = [];
  for (const path of [...MANAGED_TOP, ...unmanaged]) {
    const parts = path.split('/');
    const old = await present(join(target, ...parts));
    const fresh = await present(join(temp, ...parts));
    if (old || fresh) entries.push({ path, old, new: fresh });
  }
  return entries;
}

/** Parent directories of new unmanaged files that the folder does not have yet, outermost first. */
async function missingDirs(target: string, unmanaged: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const d of ancestorsOf(unmanaged))
    if (!(await present(join(target, ...d.split('/'))))) missing.push(d);
  return missing;
}

/** Every directory above the given '/' paths, sorted (so each comes after its parent). */
function ancestorsOf(paths: readonly string[]): string[] {
  const dirs = new Set<string>();
  for (const path of paths) {
    const segments = path.split('/').slice(0, -1);
    for (let i = 1; i <= segments.length; i++) dirs.add(segments.slice(0, i).join('/'));
  }
  return [...dirs].sort();
}

/**
 * What to write at `path` given the file there now. FolderFiles are text, so a file that is not
 * UTF-8 (an image beside a doc) comes back from readFolder decoded with replacement characters:
 * when the text given is exactly what the file on disk decodes to, the file's own bytes are
 * written, never the lossy decoding (and `same` names that file, which can be linked instead).
 * And the file's permission bits (an exec bit, a 0600) carry over, whatever the bytes.
 */
async function onDisk(
  target: string,
  path: string,
  text: string,
): Promise<{ bytes: string | Buffer; mode?: number; same?: string }> {
  const file = join(target, ...path.split('/'));
  const info = await lstat(file).catch(() => undefined);
  if (!info?.isFile()) return { bytes: text };
  const mode = info.mode & 0o777;
  const existing = await readFile(file).catch(() => undefined);
  if (existing !== undefined && decodesTo(existing, text)) return { bytes: existing, mode, same: file };
  return { bytes: text, mode };
}

/**
 * Whether `bytes` decode to `text`. Valid UTF-8 of another length cannot: it is told apart without
 * decoding it (a changed Tools/openapi.json is not decoded into a second 25 MB string).
 */
function decodesTo(bytes: Buffer, text: string): boolean {
  if (bytes.length !== Buffer.byteLength(text) && isUtf8(bytes)) return false;
  return bytes.toString('utf8') === text;
}

/**
 * Links an unchanged file into the new tree, its data made durable like a written file's (a
 * datasync of a file already on disk returns at once; one edited but not yet flushed is
 * flushed). False when the filesystem refuses a hard link (protected_hardlinks, no support) or
 * the sync through a read-only handle (Windows): the caller writes a copy instead.
 */
async function linkFile(existing: string, dest: string): Promise<boolean> {
  try {
    await link(existing, dest);
  } catch {
    return false;
  }
  try {
    const handle = await open(dest, 'r');
    try {
      await handle.datasync();
    } finally {
      await handle.close();
    }
    return true;
  } catch {
    await rm(dest, { force: true });
    return false;
  }
}

/** The cause's errno code (or message) is kept: it says why, and it never holds file contents. */
function failed(message: string, dir: string, cause?: unknown, path?: string): SvcError {
  const why = cause instanceof Error ? ` (${(cause as NodeJS.ErrnoException).code ?? cause.message})` : '';
  return new SvcError('WRITE_FAILED', `${message}${why}`, { place: { file: path ?? dir }, cause });
}
