/**
 * The last step of a provider change of an app in branch folders, once the new server has been
 * imported into the app folder: each branch folder loses the files svc wrote there (config.yaml,
 * Tools/, .svc/, docker-compose.yml, .env.example, its generated README), the primary branch
 * folder's own files move to the app folder, and a directory they leave empty goes. A user's edit
 * is sacred: a file svc did not write is moved (by rename, so its bytes and mode stay) or left
 * where it is, never deleted.
 */
import { lstat, mkdir, readdir, realpath, rename, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { exists } from './durable-fs.js';
import { isManagedPath } from './folder-paths.js';
import type { FolderFiles } from './model.js';
import { someFilesIn } from './user-files.js';

/** A branch folder that stays because files of the user's are still in it. */
export interface BranchLeft {
  /** The folder's name (`main`, `version-<id>`, or the primary's when a file had a namesake). */
  name: string;
  /** Up to 20 of its files, '/' paths. */
  files: string[];
}

/** Whether `dir` is a server folder (it has a config.yaml). */
export function isServerFolder(dir: string): Promise<boolean> {
  return exists(path.join(dir, 'config.yaml'));
}

/** The server folders directly inside `dir`, sorted; [] when it is missing. */
export async function serverFoldersIn(dir: string): Promise<string[]> {
  const dirs = (await readdir(dir, { withFileTypes: true }).catch(() => []))
    .filter((e) => e.isDirectory())
    .map((e) => path.join(dir, e.name));
  const servers = await Promise.all(dirs.map(isServerFolder));
  return dirs.filter((_, i) => servers[i]).sort();
}

/**
 * Of `kept` (a branch folder's files that a provider change keeps), those the import carries into
 * the app folder `appDir`: the ones under the paths svc manages (content items, a README of the
 * user's), which the folder writer replaces as a whole, when the app folder has no file of that
 * name. The rest of the user's files are moved by rename afterwards (`retireBranchFolders`).
 */
export async function carriedInto(appDir: string, kept: FolderFiles): Promise<FolderFiles> {
  const carried: Record<string, string> = {};
  for (const [p, text] of Object.entries(kept))
    if (isManagedPath(p) && !(await exists(path.join(appDir, ...p.split('/'))))) carried[p] = text;
  return carried;
}

/** Removes the directories from `file`'s up to `top` (included) that are left empty. */
async function pruneUp(file: string, top: string): Promise<void> {
  for (let dir = path.dirname(file); dir === top || dir.startsWith(`${top}${path.sep}`); ) {
    const entries = await readdir(dir).catch(() => undefined);
    if (entries === undefined || entries.length > 0) return;
    await rmdir(dir);
    dir = path.dirname(dir);
  }
}

/**
 * A branch folder of `appDir` that retiring may delete from: a real directory directly in the app
 * folder (not a symbolic link, which could lead svc to delete or move files anywhere), or
 * undefined when it is gone.
 */
export async function realBranchDir(appDir: string, name: string): Promise<string | undefined> {
  const dir = path.join(appDir, name);
  const info = await lstat(dir).catch(() => undefined);
  if (info === undefined) return undefined;
  if (!info.isDirectory() || path.dirname(await realpath(dir)) !== (await realpath(appDir))) {
    throw new SvcError(
      'FOLDER_INVALID',
      `${name} is not a folder inside the app folder (a symbolic link?); svc retires only real branch folders`,
      { place: { file: dir } },
    );
  }
  return dir;
}

/** Whether `target`'s directory, once made, really lies in `appDir` (no symbolic link leads out). */
async function landsInside(appDir: string, target: string): Promise<boolean> {
  const [root, parent] = await Promise.all([realpath(appDir), realpath(path.dirname(target))]);
  return parent === root || parent.startsWith(`${root}${path.sep}`);
}

/** What retiring needs of a layout: each branch folder's files as they are on disk now, and which svc wrote. */
export interface RetiringLayout {
  appDir: string;
  branches: readonly { dir: string; files: FolderFiles; svcFiles: ReadonlySet<string> }[];
  /** The branch folder whose own files move to the app folder. */
  primaryDir: string;
}

/**
 * Retires the branch folders after a successful import into the app folder; `carried` names the
 * files the import already wrote there from the primary branch folder; each branch's `svcFiles`
 * tell the user's files from svc's (a file not named there is the user's). Returns the branch folders that stay, with the user's files still in them.
 */
export async function retireBranchFolders(
  layout: RetiringLayout,
  carried: ReadonlySet<string>,
): Promise<BranchLeft[]> {
  const left: BranchLeft[] = [];
  for (const b of layout.branches) {
    const kept = Object.fromEntries(Object.entries(b.files).filter(([p]) => !b.svcFiles.has(p)));
    const at = (p: string) => path.join(b.dir, ...p.split('/'));
    const gone: string[] = [];
    for (const p of Object.keys(b.files)) {
      if (Object.hasOwn(kept, p)) continue;
      await rm(at(p), { force: true });
      gone.push(p);
    }
    if (b.dir === layout.primaryDir) {
      for (const p of Object.keys(kept)) {
        const target = path.join(layout.appDir, ...p.split('/'));
        if (carried.has(p)) await rm(at(p), { force: true });
        else if (isManagedPath(p) || (await exists(target))) continue;
        else {
          await mkdir(path.dirname(target), { recursive: true });
          if (!(await landsInside(layout.appDir, target))) continue;
          await rename(at(p), target);
        }
        gone.push(p);
      }
    }
    // Only the directories those files leave empty go: an empty directory of the user's stays.
    for (const p of gone.sort().reverse()) await pruneUp(at(p), b.dir);
    if (await exists(b.dir)) left.push({ name: path.basename(b.dir), files: await someFilesIn(b.dir, 20) });
  }
  return left;
}
