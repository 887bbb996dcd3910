/**
 * The programmatic export (spec 2.9): `{ server, files }` where files are the standard folder
 * (the paths svc manages, and the `.gitignore` it wrote) without its `.svc/` bookkeeping, and server is
 * the parsed config.yaml.
 * Anything else a folder on disk may hold is left out, above all a `.env` with the upstream secret.
 */
import { SvcError } from '../../core/svc-error.js';
import { isManagedPath } from '../../folder/folder-paths.js';
import { folderInvalid } from '../../folder/folder-problems.js';
import { loadFolder } from '../../folder/load-folder.js';
import { BOOKKEEPING_DIR, type FolderFiles } from '../../folder/model.js';
import type { SvcExport } from '../../schemas/types.js';
import { validate } from '../../schemas/validate.js';
import { sortedFiles } from './render-folder.js';
import { GITIGNORE_FILE } from './render-gitignore.js';

/** Throws FOLDER_INVALID (folderInvalid: the first problem, the others in details) when the folder does not load. */
export function exportFolder(files: FolderFiles): SvcExport {
  const loaded = loadFolder(files);
  if (!loaded.ok) throw folderInvalid(loaded.errors);
  const kept: FolderFiles = {};
  for (const [path, text] of Object.entries(files)) {
    if ((!isManagedPath(path) && path !== GITIGNORE_FILE) || path.startsWith(`${BOOKKEEPING_DIR}/`)) continue;
    kept[path] = text;
  }
  const result = { server: loaded.folder.config, files: sortedFiles(kept) };
  const checked = validate('export', result);
  if (!checked.ok) {
    throw new SvcError('FOLDER_INVALID', 'the export does not match its schema', {
      details: checked.errors.map((e) => `${e.field || '(root)'} ${e.message}`),
    });
  }
  return checked.value;
}
