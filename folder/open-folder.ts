import path from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { folderInvalid } from './folder-problems.js';
import { loadFolder } from './load-folder.js';
import type { FolderFiles, FolderModel } from './model.js';
import { readFolder } from './read-folder.js';

export interface OpenFolder {
  dir: string;
  files: FolderFiles;
  folder: FolderModel;
}

/** Reads and validates a server folder; every problem in it becomes one detail line. */
export async function openFolder(cwd: string, dirArg: string): Promise<OpenFolder> {
  const dir = path.resolve(cwd, dirArg);
  const files = await readFolder(dir);
  if (files['config.yaml'] === undefined) {
    throw new SvcError(
      'FOLDER_NOT_FOUND',
      'not a server folder: config.yaml is missing (create one with `svc init`)',
      {
        place: { file: dir },
      },
    );
  }
  const loaded = loadFolder(files);
  if (!loaded.ok) throw folderInvalid(loaded.errors, `the server folder ${dirArg}`);
  return { dir, files, folder: loaded.folder };
}
