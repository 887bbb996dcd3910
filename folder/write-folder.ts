/**
 * FolderFiles → disk, atomically for everything svc manages. The complete new set of managed
 * entries is built in a temporary sibling directory (same parent, so renames stay on one
 * filesystem); only then are the managed top-level entries swapped in by renames, and any
 * failure puts the old entries back. Files svc does not manage (a .git directory, .env, a
 * user's notes) are never moved or rewritten, and the folder directory itself keeps its
 * identity, so a runtime watching it sees the change.
 */
import { lstat, mkdir, mkdtemp, realpath, rename, rm, stat, writeFile } from 'node:fs/promises';
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

export async function writeFolder(
  dir: string,
  files: FolderFiles,
  opts: WriteFolderOptions = {},
): Promise<void> {
  for (const path of Object.keys(files)) {
    const reason = unsafePathReason(path);
    if (reason)
      throw new SvcError('WRITE_FAILED', `refused to write "${path}": ${reason}`, { place: { file: path } });
    if (!isManagedPath(path)) {
      throw new SvcError('WRITE_FAILED', `refused to write "${path}": not a path svc manages`, {
        place: { file: path },
      });
    }
  }
  const step = async (name: string) => {
    if (opts.beforeStep) await opts.beforeStep(name);
  };

  const target = await resolveTarget(dir);
  const parent = dirname(target);
  await mkdir(parent, { recursive: true }).catch((e) => {
    throw failed(`cannot create ${parent}`, dir, e);
  });
  const exists = await stat(target).then(
    (s) => {
      if (!s.isDirectory()) throw failed(`${dir} exists and is not a directory`, dir);
      return true;
    },
    () => false,
  );

  const temp = await mkdtemp(join(parent, `.${basename(target)}.svc-new-`)).catch((e) => {
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  let current: string | undefined;
  try {
    for (const path of Object.keys(files).sort()) {
      current = path;
      await step(`write ${path}`);
      const full = join(temp, ...path.split('/'));
      await mkdir(dirname(full), { recursive: true });
      await writeFile(full, files[path] as string, 'utf8');
    }
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
  await swapManaged(target, temp, step, dir);
}

async function swapManaged(target: string, temp: string, step: (name: string) => Promise<void>, dir: string) {
  const old = await mkdtemp(join(dirname(target), `.${basename(target)}.svc-old-`)).catch(async (e) => {
    await rm(temp, { recursive: true, force: true });
    throw failed(`cannot create a temporary folder beside ${dir}`, dir, e);
  });
  const movedOut: string[] = [];
  const movedIn: string[] = [];
  try {
    for (const name of MANAGED_TOP) {
      if (await present(join(target, name))) {
        await step(`set aside ${name}`);
        await rename(join(target, name), join(old, name));
        movedOut.push(name);
      }
      if (await present(join(temp, name))) {
        await step(`swap ${name}`);
        await rename(join(temp, name), join(target, name));
        movedIn.push(name);
      }
    }
  } catch (e) {
    const stuck: string[] = [];
    for (const name of movedIn.reverse()) {
      await rename(join(target, name), join(temp, name)).catch(() => stuck.push(name));
    }
    for (const name of movedOut.reverse()) {
      await rename(join(old, name), join(target, name)).catch(() => stuck.push(name));
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
