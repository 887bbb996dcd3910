/**
 * What a directory already holds before `svc init` writes into it: init refuses a directory with files in
 * it unless --force, and with --force it writes every file of the user's back as it was (bytes and mode).
 * A .git directory alone does not make a directory "not empty": a fresh repository is where init belongs.
 */
import { chmod, lstat, readdir, realpath, stat } from 'node:fs/promises';
import { join, sep } from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { exists } from './durable-fs.js';
import { MANAGED_TOP } from './folder-paths.js';
import type { FolderFiles } from './model.js';
import { readFolder } from './read-folder.js';

const IGNORED = new Set(['.git']);

/** Up to `limit` file paths under `dir` ('/'-separated, sorted, depth first); [] when it is missing or empty. */
export async function someFilesIn(dir: string, limit: number): Promise<string[]> {
  const found: string[] = [];
  async function walk(abs: string, rel: string): Promise<void> {
    const entries = await readdir(abs, { withFileTypes: true }).catch(() => []);
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= limit) return;
      if (rel === '' && IGNORED.has(entry.name)) continue;
      const path = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(join(abs, entry.name), path);
      else found.push(path);
    }
  }
  await walk(dir, '');
  return found;
}

/** How many of the files found a refusal names. */
const NAMED_FILES = 5;

/**
 * What `svc init` may write into: refuses an existing server folder, and a directory with files
 * unless `force` (then reads them, to be written back as they are); undefined when it is empty.
 */
export async function userFilesBeforeInit(dir: string, force: boolean): Promise<UserFiles | undefined> {
  const config = join(dir, 'config.yaml');
  if (await exists(config)) {
    throw new SvcError(
      'FOLDER_EXISTS',
      'a server folder already exists here; re-import it with `svc import`',
      {
        place: { file: config },
      },
    );
  }
  const found = await someFilesIn(dir, NAMED_FILES + 1);
  if (found.length > 0 && !force) {
    const named = found.slice(0, NAMED_FILES).join(', ') + (found.length > NAMED_FILES ? ', …' : '');
    throw new SvcError(
      'USAGE',
      `${dir} is not empty (${named}); give --force to create the server folder there anyway (every file already there is kept as it is)`,
      { place: { file: dir } },
    );
  }
  return found.length > 0 ? await readUserFiles(dir) : undefined;
}

export interface UserFiles {
  /** The files under the entries svc manages (the only ones the folder writer would replace). */
  files: FolderFiles;
  modes: Map<string, number>;
}

export async function readUserFiles(dir: string): Promise<UserFiles> {
  const managed = new Set<string>(MANAGED_TOP);
  const files = await readFolder(dir, { skip: (path) => !managed.has(path.split('/')[0] ?? '') });
  return { files, modes: await fileModes(dir, Object.keys(files)) };
}

/** The permission bits of each file `paths` names under `dir` ('/' paths; each must exist). */
export async function fileModes(dir: string, paths: Iterable<string>): Promise<Map<string, number>> {
  const modes = new Map<string, number>();
  for (const path of paths) modes.set(path, (await stat(join(dir, ...path.split('/')))).mode & 0o7777);
  return modes;
}

/**
 * The writer creates files afresh; give the user's files back their modes (an executable script
 * stays one). Only regular files really inside `dir`: chmod follows symbolic links, and a recorded
 * path may come from a file in the repository.
 */
export async function restoreModes(dir: string, modes: ReadonlyMap<string, number>): Promise<void> {
  const root = await realpath(dir);
  for (const [path, mode] of modes) {
    const file = join(dir, ...path.split('/'));
    const info = await lstat(file).catch(() => undefined);
    if (info === undefined || !info.isFile()) continue;
    if (!(await realpath(file)).startsWith(`${root}${sep}`)) continue;
    if ((info.mode & 0o7777) !== mode) await chmod(file, mode);
  }
}
