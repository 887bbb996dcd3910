/**
 * One JSON file per server folder in the user's cache directory (the CLI's SVC_CACHE_DIR rule,
 * schema-check-cache.ts), never in the folder: machine-local stat data (file-stats.ts), which means
 * nothing in a clone and is never committed. Keyed by the folder's real path. A record that cannot
 * be read is none; one that cannot be written is no error (it only saves time). A write goes to a
 * temporary file renamed over the old one, so concurrent writers leave one whole file. The records
 * name the folder's files: the directory is the user's alone (0700). At most MAX_RECORDS are kept
 * (GitHub's folder: 120 KB), the least recently written dropped first.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { replaceCacheFile } from './replace-cache-file.js';

const MAX_RECORDS = 64;

function recordFile(cacheDir: string, dir: string): { file: string; real: string } {
  const real = realpathSync(dir);
  const key = createHash('sha256').update(real).digest('hex').slice(0, 32);
  return { file: path.join(cacheDir, 'folder-stats', `${key}.json`), real };
}

/** The record kept for the folder at `dir` (its real path in `dir`), or undefined. */
export function readStatRecord(cacheDir: string, dir: string): { dir: string; value: unknown } | undefined {
  try {
    const { file, real } = recordFile(cacheDir, dir);
    const value = JSON.parse(readFileSync(file, 'utf8')) as { dir?: unknown };
    return value?.dir === real ? { dir: real, value } : undefined;
  } catch {
    return undefined;
  }
}

/** Keeps `value` (with the folder's real path as `dir`) as the folder's record. */
export function writeStatRecord(cacheDir: string, dir: string, value: object): void {
  try {
    const { file, real } = recordFile(cacheDir, dir);
    if (replaceCacheFile(file, JSON.stringify({ ...value, dir: real }), { dir: 0o700, file: 0o600 }))
      prune(path.dirname(file));
  } catch {
    // The folder cannot be resolved, or a record not pruned: only time is lost.
  }
}

/** Drops the least recently written records past MAX_RECORDS (errors are ignored). */
function prune(dir: string): void {
  const names = readdirSync(dir).filter((n) => n.endsWith('.json'));
  if (names.length <= MAX_RECORDS) return;
  const byAge = names
    .map((name) => ({ name, at: statSync(path.join(dir, name)).mtimeMs }))
    .sort((a, b) => a.at - b.at);
  for (const { name } of byAge.slice(0, names.length - MAX_RECORDS)) unlinkSync(path.join(dir, name));
}
