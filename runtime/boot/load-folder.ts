/**
 * Load config: the folder one runtime serves (a model given by the caller, a folder directory, or
 * the deprecated single-file bundle) and the git commit it was checked out at.
 */
import { SvcError } from '../../core/svc-error.js';
import type { FolderModel } from '../../folder/model.js';
import type { RuntimeEnv } from '../env.js';
import { folderCommit } from '../folder-commit.js';
import { loadBundle, loadFolderDir } from '../load-source.js';
import type { Logger } from '../logger.js';

export interface ServedFolderSource {
  folder: FolderModel;
  /** The folder directory read (undefined for a model or a bundle). */
  dir?: string;
  /** The commit of a clean git checkout of dir. */
  commit?: string;
  /** What runtime_started names as the source. */
  source: string | undefined;
}

export interface FolderChoice {
  env: RuntimeEnv;
  folderDir?: string;
  folder?: FolderModel;
}

async function readFolder(opts: FolderChoice, dir: string | undefined, logger: Logger): Promise<FolderModel> {
  const { env } = opts;
  if (opts.folder) return opts.folder;
  if (dir) return (await loadFolderDir(dir, { blocking: true })).folder;
  if (env.bundlePath) {
    logger.log('warn', 'bundle_deprecated', {
      message:
        'SVC_BUNDLE_PATH (single-file bundle) is deprecated: export the standard folder and set SVC_FOLDER_PATH instead',
      bundle: env.bundlePath,
    });
    return (await loadBundle(env.bundlePath)).folder;
  }
  throw new SvcError('CONFIG_MISSING_ENV', 'no folder to serve: pass a folder or set SVC_FOLDER_PATH', {
    place: { field: 'SVC_FOLDER_PATH' },
  });
}

export async function loadServedFolder(opts: FolderChoice, logger: Logger): Promise<ServedFolderSource> {
  const dir = opts.folderDir ?? opts.env.folderPath;
  const folder = await readFolder(opts, dir, logger);
  if (opts.folder) return { folder, source: 'model' };
  if (!dir) return { folder, source: opts.env.bundlePath };
  const commit = await folderCommit(dir);
  return { folder, dir, source: dir, ...(commit ? { commit } : {}) };
}
