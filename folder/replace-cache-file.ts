/**
 * Writes a file of the user's cache directory whole: to a temporary file beside it, renamed over
 * it, so concurrent writers leave one whole file (the last rename wins). A cache is only an
 * optimization: a write that fails leaves no temporary file behind and is no error.
 */
import { mkdirSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Whether `text` is now the content of `file`; `mode`s for a new directory and for the file. */
export function replaceCacheFile(
  file: string,
  text: string,
  mode: { dir?: number; file?: number } = {},
): boolean {
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  try {
    mkdirSync(path.dirname(file), { recursive: true, ...(mode.dir !== undefined ? { mode: mode.dir } : {}) });
    writeFileSync(temp, text, mode.file !== undefined ? { mode: mode.file } : {});
    renameSync(temp, file);
    return true;
  } catch {
    try {
      unlinkSync(temp);
    } catch {
      // Nothing was written.
    }
    return false;
  }
}
