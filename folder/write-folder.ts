/**
 * FolderFiles → disk, atomically. The complete new set of files is built in a temporary
 * sibling directory (same parent, so renames stay on one filesystem); only then is it swapped
 * in by renames, and any failure puts every old entry back and removes the temporary copy.
 *
 * Managed paths (config.yaml, README.md, docker-compose.yml, .env.example, Tools/, Skills/,
 * Prompts/, Resources/, Docs/, Widgets/, .svc/) become exactly `files`: a managed top-level
 * entry is replaced as a whole. Anything else on disk (a .git directory, .env, a user's notes)
 * is preserved; an unmanaged path that `files` does name is written too, unless its bytes are
 * already on disk (so a read-modify-write of the whole folder leaves a .env and its mode alone).
 * The folder directory itself keeps its identity, so a runtime watching it sees the change.
 */
import { lstat, mkdir, mkdtemp, readFile, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { isManagedPath, MANAGED_TOP, unsafePathReason } from './folder-paths.js';
import type { FolderFiles } from './model.js';

export interface WriteFolderOptions {
  /**
   * Called before each filesystem step ("write Tools/x.yaml", "swap Tools", …); a throw makes
   * that step fail. For tests of the failure paths; production code leaves it out.
   */
  beforeStep?: (step: string) => void | Promise<void>;
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

  const target = await resolveTarget(dir);
  const parent = dirname(target);
  await mkdir(parent, { recursive: true }).catch((e) => {
    throw failed(`cannot create ${parent}`, dir, e);
  });
  const release = await acquireLock(target, dir);
  try {
    await writeUnlocked(target, dir, files, step);
  } finally {
    await release();
  }
}

async function writeUnlocked(target: string, dir: string, files: FolderFiles, step: Step): Promise<void> {
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

  const temp = await mkdtemp(join(parent, `.${basename(target)}.svc-new-`)).catch((e) => {
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  let current: string | undefined;
  const note = (path: string) => (e: unknown) => {
    current ??= path;
    throw e;
  };
  try {
    const dirs = new Set(toWrite.map((p) => p.split('/').slice(0, -1).join('/')).filter((d) => d !== ''));
    for (const d of [...dirs].sort())
      await mkdir(join(temp, ...d.split('/')), { recursive: true }).catch(note(d));
    // A thousand small files: write them several at a time rather than one after another.
    await inBatches(toWrite, WRITE_CONCURRENCY, async (path) => {
      await step(`write ${path}`).catch(note(path));
      const text = files[path] as string;
      const bytes = exists ? await sameBytes(target, path, text) : text;
      await writeFile(join(temp, ...path.split('/')), bytes).catch(note(path));
    });
  } catch (e) {
    await rm(temp, { recursive: true, force: true });
    throw failed(`could not write ${current ?? 'the new folder'}; nothing was changed`, dir, e, current);
  }

  if (!exists) {
    try {
      await step('rename new folder');
      await rename(temp, target);
      return;
    } catch (e) {
      await rm(temp, { recursive: true, force: true });
      throw failed('could not move the new folder into place; nothing was changed', dir, e);
    }
  }
  await swap(target, temp, unmanaged, step, dir);
}

/** Renames entries from `temp` into `target`, setting the old ones aside; undoes everything on failure. */
async function swap(target: string, temp: string, unmanaged: readonly string[], step: Step, dir: string) {
  const old = await mkdtemp(join(dirname(target), `.${basename(target)}.svc-old-`)).catch(async (e) => {
    await rm(temp, { recursive: true, force: true });
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  const movedOut: string[] = [];
  const movedIn: string[] = [];
  const move = async (rel: string) => {
    const parts = rel.split('/');
    if (await present(join(target, ...parts))) {
      await step(`set aside ${rel}`);
      await mkdir(dirname(join(old, ...parts)), { recursive: true });
      await rename(join(target, ...parts), join(old, ...parts));
      movedOut.push(rel);
    }
    if (await present(join(temp, ...parts))) {
      await step(`swap ${rel}`);
      await mkdir(dirname(join(target, ...parts)), { recursive: true });
      await rename(join(temp, ...parts), join(target, ...parts));
      movedIn.push(rel);
    }
  };
  try {
    for (const name of MANAGED_TOP) await move(name);
    for (const rel of unmanaged) await move(rel);
  } catch (e) {
    const stuck: string[] = [];
    for (const rel of movedIn.reverse()) {
      const parts = rel.split('/');
      await rename(join(target, ...parts), join(temp, ...parts)).catch(() => stuck.push(rel));
    }
    for (const rel of movedOut.reverse()) {
      const parts = rel.split('/');
      await rename(join(old, ...parts), join(target, ...parts)).catch(() => stuck.push(rel));
    }
    await rm(temp, { recursive: true, force: true });
    if (stuck.length > 0) {
      // Never delete what could not be put back: the old entries stay in `old` for a person to recover.
      throw failed(
        `the swap failed and ${stuck.join(', ')} could not be restored; the old copies are in ${old}`,
        dir,
        e,
      );
    }
    await rm(old, { recursive: true, force: true });
    throw failed('could not swap the new files in; the folder was restored unchanged', dir, e);
  }
  await rm(old, { recursive: true, force: true });
  await rm(temp, { recursive: true, force: true });
}

/**
 * FolderFiles are text, so a file that is not UTF-8 (an image beside a doc) comes back from
 * readFolder decoded with replacement characters. When the text given is exactly what the
 * file on disk decodes to, the file's own bytes are written, never the lossy decoding.
 */
async function sameBytes(target: string, path: string, text: string): Promise<string | Buffer> {
  const existing = await readFile(join(target, ...path.split('/'))).catch(() => undefined);
  return existing !== undefined && existing.toString('utf8') === text ? existing : text;
}

/**
 * One writer per folder at a time: two imports swapping entries at once could leave a mix of
 * both. The lock is a sibling file holding the writer's pid; a lock whose process is gone (a
 * crash) is taken over.
 */
async function acquireLock(target: string, dir: string): Promise<() => Promise<void>> {
  const lock = join(dirname(target), `.${basename(target)}.svc-lock`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await writeFile(lock, `${process.pid}\n`, { flag: 'wx' });
      return () => rm(lock, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST')
        throw failed(`cannot create the lock ${lock}`, dir, e);
      const pid = Number((await readFile(lock, 'utf8').catch(() => '')).trim());
      if (Number.isInteger(pid) && pid > 0 && isAlive(pid)) {
        throw failed(`another svc process (pid ${pid}) is writing this folder; its lock is ${lock}`, dir);
      }
      await rm(lock, { force: true });
    }
  }
  throw failed(`cannot take the lock ${lock}`, dir);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

async function resolveTarget(dir: string): Promise<string> {
  // A symlinked folder is written where it really lives, so the temporary sibling is on the same filesystem.
  return realpath(dir).catch(() => resolve(dir));
}

async function present(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** The cause's errno code (or message) is kept: it says why, and it never holds file contents. */
function failed(message: string, dir: string, cause?: unknown, path?: string): SvcError {
  const why = cause instanceof Error ? ` (${(cause as NodeJS.ErrnoException).code ?? cause.message})` : '';
  return new SvcError('WRITE_FAILED', `${message}${why}`, { place: { file: path ?? dir }, cause });
}
