/**
 * The folder writer writes the paths svc manages (Skills/, Resources/, … and the top-level files)
 * from text, so a file of the user's under them survives a rewrite only if its bytes are UTF-8
 * text: a binary file read as text would be written back mangled. A command that must rewrite
 * such files asks first which of them would not come back as they are, and refuses.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { FolderFiles } from './model.js';

/** The paths of `files` (read from `dir` as text) whose bytes on disk the text does not reproduce. */
export async function notRoundTripping(dir: string, files: FolderFiles): Promise<string[]> {
  const bad: string[] = [];
  for (const [p, text] of Object.entries(files)) {
    const bytes = await readFile(path.join(dir, ...p.split('/'))).catch(() => undefined);
    if (bytes !== undefined && !bytes.equals(Buffer.from(text, 'utf8'))) bad.push(p);
  }
  return bad.sort();
}
