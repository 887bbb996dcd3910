/**
 * config.yaml as svc writes it, read by the fast reader and checked against its schema, without
 * loading the `yaml` package (~25 ms): for the unchanged replay's first try (replay-quick.ts).
 * Anything the fast reader does not take, or that the schema refuses, is undefined here; loadConfig
 * (load-yaml-file.ts) reads it, and gives the same value where this gives one.
 */
import type { SvcConfig } from '../schemas/types.js';
import { validatorFor } from '../schemas/validate.js';
import type { FolderFiles } from './model.js';
import { FALLBACK, readYamlFast } from './yaml-fast.js';

/** Largest YAML or content file the loader reads (characters): well above any real tool file. */
export const MAX_FOLDER_FILE_CHARS = 8 * 1024 * 1024;
export const CONFIG_FILE = 'config.yaml';

export function loadConfigFast(files: FolderFiles): SvcConfig | undefined {
  const text = files[CONFIG_FILE];
  if (text === undefined || text.length > MAX_FOLDER_FILE_CHARS) return undefined;
  const value = readYamlFast(text);
  return value !== FALLBACK && validatorFor('config')(value) ? (value as SvcConfig) : undefined;
}
