/**
 * The branch folders of an app-builder app, as `svc verify` and `svc source set` see them: the
 * folder given, when it is a server folder, or else every server folder directly inside it
 * (`<dir>/live`, `<dir>/main`, …). Verification belongs to the app, so it is kept the same in all.
 * A provider change replaces the whole layout (`appLayoutOf`).
 */
import path from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import { isServerFolder, serverFoldersIn } from '../../folder/branch-folders.js';
import { writeFolder } from '../../folder/write-folder.js';
import { type OpenFolder, openFolder } from '../../folder/open-folder.js';
import type { SvcConfig } from '../../schemas/types.js';
import { renderConfig } from '../render/index.js';
import { branchFolder, LIVE_BRANCH } from '../sources/app-builder-urls.js';

export type AppBuilderSource = Extract<SvcConfig['source'], { kind: 'app_builder' }>;

export interface BranchFolder extends OpenFolder {
  source: AppBuilderSource;
}

export async function openAppBuilderFolders(cwd: string, dirArg: string): Promise<BranchFolder[]> {
  const dir = path.resolve(cwd, dirArg);
  const candidates = (await isServerFolder(dir)) ? [dir] : await serverFoldersIn(dir);
  const folders: BranchFolder[] = [];
  for (const candidate of candidates) {
    const open = await openFolder(cwd, candidate);
    const source = open.folder.config.source;
    if (source.kind === 'app_builder') folders.push({ ...open, source });
  }
  if (folders.length === 0) {
    throw new SvcError(
      'FOLDER_NOT_FOUND',
      'no app-builder server folder here: give the folder `svc init --app-builder` created, or one of its branch folders',
      { place: { file: dir } },
    );
  }
  const apps = new Set(folders.map((f) => f.source.appId));
  if (apps.size > 1) {
    throw new SvcError('FOLDER_INVALID', `these folders belong to different apps (${[...apps].join(', ')})`, {
      place: { file: dir },
    });
  }
  return folders;
}

/** Writes each folder's config.yaml with `change` applied to its source (only where it changes). */
export async function updateSources(
  folders: readonly BranchFolder[],
  change: (source: AppBuilderSource) => AppBuilderSource,
): Promise<void> {
  for (const f of folders) {
    const source = change(f.source);
    const config: SvcConfig = { ...f.folder.config, source };
    const text = renderConfig(config);
    if (text === f.files['config.yaml']) continue;
    await writeFolder(f.dir, { ...f.files, 'config.yaml': text });
  }
}

/** An app-builder app laid out as `svc init --app-builder` makes it: the app folder and its branch folders. */
export interface AppLayout {
  appDir: string;
  branches: BranchFolder[];
  /** The branch folder named on the command line, else `live/`, else the first. */
  primary: BranchFolder;
}

/**
 * A folder `svc init --app-builder` made for a branch: named for the branch, its server id ending
 * in `-<branch folder>` (a single server that merely sits in a folder named `live` is not one).
 */
function isBranchFolder(f: BranchFolder): boolean {
  const name = branchFolder(f.source.branch);
  return path.basename(f.dir) === name && f.folder.config.server.id.endsWith(`-${name}`);
}

/** The server id the app was made with (`svc init --server-id`, else from its folder's name). */
export function appServerId(f: BranchFolder): string {
  return f.folder.config.server.id.slice(0, -(branchFolder(f.source.branch).length + 1));
}

/**
 * The app layout `dirArg` belongs to: the app folder itself, or one of its branch folders (a
 * folder named for its branch whose parent is not a server folder). Undefined for a single server
 * folder, whatever its source. Only folders named for their own branch count as branch folders.
 */
export async function appLayoutOf(cwd: string, dirArg: string): Promise<AppLayout | undefined> {
  const dir = path.resolve(cwd, dirArg);
  let appDir = dir;
  if (await isServerFolder(dir)) {
    const open = await openFolder(cwd, dir);
    const source = open.folder.config.source;
    const parent = path.dirname(dir);
    if (source.kind !== 'app_builder' || !isBranchFolder({ ...open, source })) return undefined;
    if (await isServerFolder(parent)) return undefined;
    appDir = parent;
  }
  const all = await openAppBuilderFolders(cwd, appDir).catch((error: unknown) => {
    // Not an app folder either: the caller's own opening says what is wrong.
    if (error instanceof SvcError && error.code === 'FOLDER_NOT_FOUND') return [];
    throw error;
  });
  const branches = all.filter(isBranchFolder);
  if (branches.length === 0) return undefined;
  const primary =
    branches.find((b) => b.dir === dir) ??
    branches.find((b) => b.source.branch === LIVE_BRANCH) ??
    (branches[0] as BranchFolder);
  return { appDir, branches, primary };
}
