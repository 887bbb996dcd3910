/**
 * One JSON file per server folder in the user's cache directory (the CLI's SVC_CACHE_DIR rule,
 * schema-check-cache.ts), never in the folder: machine-local stat data (file-stats.ts), which means
 * nothing in a clone and is never committed. Keyed by the folder's real path. A record that cannot
 * be read is none; one that cannot be written is no error (it only saves time). A write goes to a
 * temporary file renamed over the old one, so concurrent writers leave one whole file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, realpathSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

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
  let temp: string | undefined;
  try {
    const { file, real } = recordFile(cacheDir, dir);
    temp = `${file}.${process.pid}.${Date.now()}.tmp`;
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(temp, JSON.stringify({ ...value, dir: real }));
    renameSync(temp, file);
  } catch {
    try {
      if (temp) unlinkSync(temp);
    } catch {
      // Nothing was written.
    }
  }
}
