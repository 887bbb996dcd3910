/**
 * `svc init --force` into a directory of the user's: init never deletes or overwrites a file it did not
 * write. Every file already there is written back as it is (the folder writer keeps its bytes), and where
 * svc would generate a file at the same path the user's file wins; those paths are returned so init can
 * say which generated files it left out.
 */
import type { FolderFiles } from '../../folder/index.js';

export interface KeptUserFiles {
  files: FolderFiles;
  /** Paths svc would have generated but where the user's file was kept instead, sorted. */
  kept: string[];
}

export function keepUserFiles(generated: FolderFiles, existing: FolderFiles): KeptUserFiles {
  const files: FolderFiles = { ...generated };
  const kept: string[] = [];
  for (const path of Object.keys(existing).sort()) {
    if (Object.hasOwn(generated, path)) kept.push(path);
    files[path] = existing[path] as string;
  }
  return { files, kept };
}
