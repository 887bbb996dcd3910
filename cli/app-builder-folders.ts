/**
 * The branch folders of an app-builder app, as `svc verify` and `svc source set` see them: the
 * folder given, when it is a server folder, or else every server folder directly inside it
 * (`<dir>/live`, `<dir>/main`, …). Verification belongs to the app, so it is kept the same in all.
 */
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { SvcError } from '../core/svc-error.js';
import { writeFolder } from '../folder/index.js';
import { renderConfig } from '../generator/render/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { type OpenFolder, openFolder } from './open-folder.js';

export type AppBuilderSource = Extract<SvcConfig['source'], { kind: 'app_builder' }>;

export interface BranchFolder extends OpenFolder {
  source: AppBuilderSource;
}

export async function openAppBuilderFolders(cwd: string, dirArg: string): Promise<BranchFolder[]> {
  const dir = path.resolve(cwd, dirArg);
  const candidates = existsSync(path.join(dir, 'config.yaml'))
    ? [dir]
    : (await readdir(dir, { withFileTypes: true }).catch(() => []))
        .filter((e) => e.isDirectory() && existsSync(path.join(dir, e.name, 'config.yaml')))
        .map((e) => path.join(dir, e.name))
        .sort();
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
