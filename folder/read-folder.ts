/**
 * Disk → FolderFiles. Every file of the folder (bookkeeping included) as UTF-8 text with '/'
 * paths; .git/ and node_modules/ are not the folder's content. A symlink is followed only when
 * it stays inside the folder. A write that was interrupted (a crash mid-swap) is finished
 * first, so every command that opens a folder sees it wholly old or wholly new.
 */
import { lstatSync, readFileSync } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import type { FolderFiles } from './model.js';
import { settleFolder } from './settle-folder.js';

export interface ReadFolderOptions {
  /** Refuse (FOLDER_INVALID) a file larger than this. Default 64 MiB (GitHub's document is 13 MB). */
  maxFileBytes?: number;
  /** Refuse a folder with more files than this. Default 50,000. */
  maxFiles?: number;
  /**
   * Leave a path out (and, for a directory, everything below it) without reading it: the
   * runtime needs neither `.svc/` (raw specs, history) nor `Tools/openapi.json`.
   */
  skip?: (path: string, isDirectory: boolean) => boolean;
  /**
   * false: do not finish an interrupted write first (which takes the folder's lock). For a reader
   * that must never get in a writer's way and checks for writes itself (read-between-writes.ts).
   */
  settle?: boolean;
  /**
   * Read each file with blocking calls: a third of the CPU of the thread-pool round trip and
   * promise per call (GitHub's 1,108 tool files: ~50 ms against ~120 ms), and no slower on a warm
   * disk. For a process with nothing else to serve meanwhile (a CLI command, a runtime's boot).
   */
  blocking?: boolean;
}

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/** Reads of a folder whose top level keeps changing under them, before giving up. */
const MAX_READS = 5;

export async function readFolder(dir: string, opts: ReadFolderOptions = {}): Promise<FolderFiles> {
  for (let attempt = 1; ; attempt++) {
    if (opts.settle !== false) await settleFolder(dir);
    const before = await topLevelChange(dir);
    const read = await readOnce(dir, opts).then(
      (files) => ({ files }),
      (error: unknown) => ({ error }),
    );
    // A swap renames top-level entries, which changes the folder's ctime: a swap that ran while
    // this read was under way may have been read half-done (or made it fail), so read again.
    if ((await topLevelChange(dir)) === before) {
      if ('error' in read) throw read.error;
      return read.files;
    }
    if (attempt === MAX_READS) {
      throw new SvcError(
        'FOLDER_INVALID',
        `the folder kept changing while it was read (${MAX_READS} times)`,
        {
          place: { file: dir },
        },
      );
    }
  }
}

async function topLevelChange(dir: string): Promise<bigint | undefined> {
  return stat(dir, { bigint: true }).then(
    (s) => s.ctimeNs,
    () => undefined,
  );
}

/** Files read at once: a folder of a thousand tools is read in a fraction of the time one by one takes. */
const READ_CONCURRENCY = 8;

/** What an fs call came back with, kept so that errors are raised in walk order. */
type Settled<T> = { ok: true; value: T } | { ok: false; error: unknown };

function settle<T>(promise: Promise<T>): Promise<Settled<T>> {
  return promise.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );
}

async function readOnce(dir: string, opts: ReadFolderOptions): Promise<FolderFiles> {
  const maxFileBytes = opts.maxFileBytes ?? 64 * 1024 * 1024;
  const maxFiles = opts.maxFiles ?? 50_000;
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory())
      throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
  } catch (e) {
    throw new SvcError('FOLDER_NOT_FOUND', `no server folder at ${dir}`, { place: { file: dir }, cause: e });
  }
  // The walk decides which files to read, in order, and stops at its first problem; the reads
  // then run concurrently. Errors still surface as a one-by-one read would meet them: a file that
  // cannot be read before the walk's problem, else that problem.
  const planned: { rel: string; target: string }[] = [];
  let count = 0;
  const visited = new Set<string>([root]);
  // The calls made once per entry; blocking or not, a failure is a rejection met in the same place.
  const perEntry = opts.blocking
    ? { lstat: async (p: string) => lstatSync(p), readText: async (p: string) => readFileSync(p, 'utf8') }
    : { lstat, readText: (p: string) => readFile(p, 'utf8') };

  async function walk(realDir: string, relDir: string): Promise<void> {
    const entries = await readdir(realDir, { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const rel = relDir === '' ? entry.name : `${relDir}/${entry.name}`;
      let target = join(realDir, entry.name);
      let info = await perEntry.lstat(target);
      if (info.isSymbolicLink()) {
        const resolved = await realpath(target).catch(() => undefined);
        if (resolved === undefined || !isInside(root, resolved)) {
          throw new SvcError('FOLDER_INVALID', 'symbolic link points outside the folder (or nowhere)', {
            place: { file: rel },
          });
        }
        target = resolved;
        info = await stat(target);
      }
      if (info.isDirectory()) {
        if (SKIPPED_DIRS.has(entry.name) || visited.has(target) || opts.skip?.(rel, true)) continue;
        visited.add(target);
        await walk(target, rel);
      } else if (info.isFile()) {
        if (opts.skip?.(rel, false)) continue;
        if (++count > maxFiles) {
          throw new SvcError('FOLDER_INVALID', `the folder has more than ${maxFiles} files`, {
            place: { file: rel },
          });
        }
        if (info.size > maxFileBytes) {
          throw new SvcError('FOLDER_INVALID', `file is larger than ${maxFileBytes} bytes`, {
            place: { file: rel },
          });
        }
        planned.push({ rel, target });
      }
    }
  }

  const asFolderError = (e: unknown): SvcError =>
    e instanceof SvcError
      ? e
      : new SvcError('FOLDER_INVALID', `the folder cannot be read: ${(e as Error).message}`, {
          place: { file: dir },
          cause: e,
        });
  const walked = await settle(walk(root, ''));
  const texts: Settled<string>[] = new Array(planned.length);
  let next = 0;
  const reader = async () => {
    while (next < planned.length) {
      const i = next++;
      texts[i] = await settle(perEntry.readText((planned[i] as { target: string }).target));
    }
  };
  await Promise.all(Array.from({ length: Math.min(READ_CONCURRENCY, planned.length) }, reader));
  const files: FolderFiles = {};
  for (const [i, { rel }] of planned.entries()) {
    const text = texts[i] as Settled<string>;
    if (!text.ok) throw asFolderError(text.error);
    files[rel] = text.value;
  }
  if (!walked.ok) throw asFolderError(walked.error);
  const sorted: FolderFiles = {};
  for (const path of Object.keys(files).sort()) sorted[path] = files[path] as string;
  return sorted;
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return (
    rel === '' ||
    (!rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep) && !/^[A-Za-z]:/.test(rel))
  );
}
