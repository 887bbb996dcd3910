/**
 * `svc init --manual`: a server folder with no document to import, written through folder/ like
 * any import. With the files already in the directory (`--force`), each is kept as it is.
 */
import { writeFolder } from '../../folder/write-folder.js';
import type { FolderFiles } from '../../folder/model.js';
import type { SvcConfig } from '../../schemas/types.js';
import { keepUserFiles } from '../init/keep-user-files.js';
import { renderEmptyFolder } from '../render/index.js';

/** Returns the generated paths left out because a file of the user's was kept there. */
export async function writeManualFolder(
  dir: string,
  config: SvcConfig,
  userFiles?: FolderFiles,
): Promise<string[] | undefined> {
  const files = renderEmptyFolder(config);
  const kept = userFiles ? keepUserFiles(files, userFiles) : undefined;
  await writeFolder(dir, kept?.files ?? files);
  return kept?.kept;
}
