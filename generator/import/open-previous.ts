/**
 * The previous folder as the planner reads it: every file loaded and checked. Its own module so
 * that the unchanged replay, which reads config.yaml alone, loads no content parser.
 */
import { folderInvalid } from '../../folder/folder-problems.js';
import { loadFolder } from '../../folder/load-folder.js';
import type { FolderFiles } from '../../folder/model.js';
import type { PreviousFolder } from './import-types.js';

/** Loads the folder as read; throws FOLDER_INVALID naming its first problem. */
export function openPrevious(files: FolderFiles): PreviousFolder {
  const loaded = loadFolder(files);
  if (!loaded.ok) throw folderInvalid(loaded.errors, 'the server folder');
  return { files, folder: loaded.folder };
}
