/**
 * What a file's stat says about its bytes, as git's index uses it: a file whose size, mtime,
 * ctime, inode and device are all as recorded still holds the bytes it held when they were
 * recorded, provided the record was taken with the racy-timestamp rule below. Every write to a
 * file moves its ctime to the kernel's clock (user space can set mtime, never ctime); a rename
 * over it changes its inode. What is left is a write in the same clock tick as the record,
 * which the rule refuses to trust.
 *
 * The racy rule: a stat is trusted only when its ctime and mtime lie before the moment the
 * recorder started (taken before it stat'ed, then read the file) by more than the file system's
 * granularity and the kernel's coarse clock (a tick, ≤ 10 ms): RACY_MS for a file system with
 * sub-second timestamps, COARSE_RACY_MS for one with whole seconds (FAT's two). A file changed
 * after the record then always carries a later ctime. This assumes the file system stamps with
 * this machine's clock (a network file system whose server's clock is behind by more than
 * RACY_MS is not covered; SVC_CACHE_DIR=off turns the record off).
 *
 * Blocking calls throughout: the readers are CLI commands with nothing else to do meanwhile.
 */
import { type BigIntStats, lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { FolderFiles } from './model.js';

export type { BigIntStats as FileStats };

/** Sub-second timestamps: a few coarse-clock ticks. */
export const RACY_MS = 50;
/** Whole-second timestamps (FAT keeps mtime to two seconds). */
export const COARSE_RACY_MS = 2_500;

/** size, mtime, ctime (ns), inode and device, as one comparable string. */
export function statKey(s: BigIntStats): string {
  return `${s.size}:${s.mtimeNs}:${s.ctimeNs}:${s.ino}:${s.dev}`;
}

/** Whether a stat taken after `startedMs` (this machine's clock) may be trusted later (the racy rule). */
export function settledBefore(s: BigIntStats, startedMs: number): boolean {
  const NS = 1_000_000n;
  const whole = s.ctimeNs % 1_000_000_000n === 0n && s.mtimeNs % 1_000_000_000n === 0n;
  const limit = BigInt(Math.floor(startedMs - (whole ? COARSE_RACY_MS : RACY_MS))) * NS;
  return s.ctimeNs < limit && s.mtimeNs < limit;
}

/** A regular file's stat key, following links (as a reader opening it does), or undefined. */
export function fileStat(path: string): BigIntStats | undefined {
  try {
    const s = statSync(path, { bigint: true });
    return s.isFile() ? s : undefined;
  } catch {
    return undefined;
  }
}

/** The files of a folder (relative '/' paths, sorted) with their stats. */
export interface FolderStats {
  files: Map<string, BigIntStats>;
  /** The folder's own ctime: a swap renames top-level entries, which changes it. */
  topLevel: bigint;
}

const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/**
 * Every regular file of the folder with its lstat, walked as readFolder walks (.git and
 * node_modules left out); undefined for anything this walk does not take and readFolder might
 * treat otherwise (a symbolic link, a special file, an unreadable directory, more than maxFiles).
 */
export function statFolder(dir: string, maxFiles = 50_000): FolderStats | undefined {
  const files = new Map<string, BigIntStats>();
  try {
    const topLevel = statSync(dir, { bigint: true }).ctimeNs;
    const whole = walkTree(dir, '', {
      file: (path, s) => files.set(path, s).size <= maxFiles,
      dir: (_path, name) => !SKIPPED_DIRS.has(name),
    });
    if (!whole) return undefined;
    return { files: new Map([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), topLevel };
  } catch {
    return undefined;
  }
}

/** What walkTree does with an entry: false from `file` stops the walk, false from `dir` skips it. */
interface TreeVisitor {
  file(path: string, stat: BigIntStats): boolean;
  dir(path: string, name: string): boolean;
}

/**
 * Walks the directory `abs` (named `rel`, '' at the root) with lstat, following no link: false,
 * and the walk stops, at anything neither a file nor a directory or when the visitor says so.
 */
function walkTree(abs: string, rel: string, visit: TreeVisitor): boolean {
  for (const entry of readdirSync(abs, { withFileTypes: true })) {
    const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
    const full = join(abs, entry.name);
    const s = lstatSync(full, { bigint: true });
    if (s.isDirectory()) {
      if (visit.dir(path, entry.name) && !walkTree(full, path, visit)) return false;
    } else if (!s.isFile() || !visit.file(path, s)) return false;
  }
  return true;
}

/** What a content directory holds under its kind directories: a stat per file, and its directories. */
export interface TreeStats {
  /** The directory's real path (readContentDir reads there). */
  root: string;
  files: Map<string, BigIntStats>;
  dirs: string[];
}

/**
 * Every file and directory under the entries of `root` named in `top` (a content directory's kind
 * directories, in both spellings), with no link followed below `root`: undefined for a symbolic
 * link or special file anywhere there (readContentDir refuses or skips those; the caller then
 * reads it), or for more than maxFiles files.
 */
export function statTree(root: string, top: readonly string[], maxFiles = 5_000): TreeStats | undefined {
  const files = new Map<string, BigIntStats>();
  const dirs: string[] = [];
  const visit: TreeVisitor = {
    file: (path, s) => files.set(path, s).size <= maxFiles,
    dir: (path) => {
      dirs.push(path);
      return true;
    },
  };
  try {
    const real = realpathSync(root);
    // The names as listed (as readContentDir finds them), not as looked up.
    for (const name of readdirSync(real).filter((n) => top.includes(n))) {
      const full = join(real, name);
      const s = lstatSync(full, { bigint: true });
      if (s.isFile()) files.set(name, s);
      else if (!s.isDirectory()) return undefined;
      else if (visit.dir(name, name) && !walkTree(full, name, visit)) return undefined;
    }
    return { root: real, files, dirs: dirs.sort() };
  } catch {
    return undefined;
  }
}

/** The folder's ctime now (undefined when it cannot be stat'ed). */
export function topLevelNow(dir: string): bigint | undefined {
  try {
    return statSync(dir, { bigint: true }).ctimeNs;
  } catch {
    return undefined;
  }
}

/** Some files of the folder as UTF-8 text, as readFolder reads them (a file that cannot be read throws). */
export function readTexts(dir: string, paths: readonly string[]): FolderFiles {
  const files: FolderFiles = {};
  for (const path of paths) files[path] = readFileSync(join(dir, ...path.split('/')), 'utf8');
  return files;
}

/** Some files of the folder as bytes (a file that cannot be read throws). */
export function readBytes(dir: string, paths: readonly string[]): Map<string, Buffer> {
  return new Map(paths.map((path) => [path, readFileSync(join(dir, ...path.split('/')))]));
}

/** A file's bytes, or undefined when it cannot be read. */
export function fileBytes(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch {
    return undefined;
  }
}
