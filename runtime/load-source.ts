/**
 * Where the served config comes from at boot (and on --watch reloads): the folder, or the
 * deprecated single-file bundle. Parsing and validation are folder/'s loadFolder; this only
 * reads, and turns a list of folder errors into one SvcError naming the first file and field.
 *
 * Legacy bundle (SVC_BUNDLE_PATH, spec 2.9 "flowcp.bundle.json"): one JSON file holding the
 * programmatic export, `{ "server": <config.yaml as JSON>, "files": { "<path>": "<text>" } }`
 * (schemas/export.schema.json). `files` may omit config.yaml; it is then built from `server`.
 */
import { readFile } from 'node:fs/promises';
import { stringify } from 'yaml';
import { SvcError } from '../core/svc-error.js';
import {
  type FolderFiles,
  type FolderModel,
  folderInvalid,
  loadFolder,
  readFolder,
  skipUnloaded,
} from '../folder/index.js';
import { validate } from '../schemas/validate.js';

export interface LoadedSource {
  folder: FolderModel;
  /** What was loaded, for logs: the folder path or the bundle path. */
  origin: string;
  kind: 'folder' | 'bundle';
}

export function modelFromFiles(files: FolderFiles, what: string): FolderModel {
  const loaded = loadFolder(files);
  if (!loaded.ok) throw folderInvalid(loaded.errors, what);
  return loaded.folder;
}

/** `blocking`: read with blocking calls, at boot (nothing is served yet), never on a --watch reload. */
export async function loadFolderDir(dir: string, { blocking = false } = {}): Promise<LoadedSource> {
  // Only what loadFolder reads: not .svc/ nor Tools/openapi.json (19 MB of GitHub's 24).
  const files = await readFolder(dir, { skip: skipUnloaded, blocking });
  return { folder: modelFromFiles(files, `the folder ${dir}`), origin: dir, kind: 'folder' };
}

export async function loadBundle(path: string): Promise<LoadedSource> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new SvcError('FOLDER_NOT_FOUND', `cannot read the bundle at SVC_BUNDLE_PATH (${path})`, {
      place: { file: path, field: 'SVC_BUNDLE_PATH' },
      cause: error,
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new SvcError('FOLDER_INVALID', `the bundle is not valid JSON: ${(error as Error).message}`, {
      place: { file: path },
    });
  }
  const checked = validate('export', json);
  if (!checked.ok) {
    const first = checked.errors[0];
    throw new SvcError(
      'FOLDER_INVALID',
      `the bundle does not match {server, files}: ${first?.message ?? ''}`,
      {
        place: { file: path, field: first?.field ?? '' },
        details: checked.errors.map((e) => `${e.field || '/'}: ${e.message}`),
      },
    );
  }
  const files: FolderFiles = {};
  for (const [name, content] of Object.entries(checked.value.files))
    if (content !== undefined) files[name] = content;
  files['config.yaml'] ??= stringify(checked.value.server);
  return { folder: modelFromFiles(files, `the bundle ${path}`), origin: path, kind: 'bundle' };
}
