/**
 * One YAML file of the folder (config.yaml, a tool file) loaded as loadFolder loads it: the fast
 * reader for files as svc writes them, `yaml` for the rest, the schema checked with a located
 * error. Apart from load-folder.ts so that reading config.yaml alone (the unchanged import's
 * shortcut) loads no content parser.
 */
import { SvcError } from '../core/svc-error.js';
import type { SvcConfig } from '../schemas/types.js';
import { definedOnly } from './error-place.js';
import { validateLocated } from './locate-violations.js';
import type { FolderFiles } from './model.js';
import { FALLBACK, readYamlFast } from './yaml-fast.js';
import { lineOfPointer, parseYaml } from './yaml-file.js';

import { CONFIG_FILE, MAX_FOLDER_FILE_CHARS } from './load-config-fast.js';

export { CONFIG_FILE, MAX_FOLDER_FILE_CHARS };

/** config.yaml alone, read as loadFolder reads it; undefined when it does not load. */
export function loadConfig(files: FolderFiles): SvcConfig | undefined {
  return loadYamlFile<SvcConfig>(files, CONFIG_FILE, 'config', []);
}

export function loadYamlFile<T>(
  files: FolderFiles,
  path: string,
  schema: 'config' | 'tool',
  errors: SvcError[],
  /** The value the caller wrote this text from (loadFolder's `rendered`): checked, not parsed. */
  rendered?: unknown,
): T | undefined {
  const text = files[path];
  if (text === undefined) {
    errors.push(invalid(path, 'file is missing'));
    return undefined;
  }
  if (text.length > MAX_FOLDER_FILE_CHARS) {
    errors.push(invalid(path, `file is larger than ${MAX_FOLDER_FILE_CHARS} characters`));
    return undefined;
  }
  // Files as svc writes them take the fast path; only a file that needs it (a hand edit the fast
  // reader does not take, or a schema violation to be located by line) goes through `yaml`.
  const fast = rendered ?? readYamlFast(text);
  if (fast !== FALLBACK) {
    const quick = validateLocated(schema, fast);
    if (quick.ok) return quick.value as T;
  }
  const parsed = parseYaml(text);
  if (!parsed.ok) {
    for (const p of parsed.problems) {
      errors.push(
        new SvcError('FOLDER_INVALID', p.message, {
          place: definedOnly({ file: path, line: p.line, column: p.column }),
        }),
      );
    }
    return undefined;
  }
  const checked = validateLocated(schema, parsed.parsed.value, parsed.parsed);
  if (!checked.ok) {
    for (const v of checked.violations) {
      errors.push(
        new SvcError('FOLDER_INVALID', `${v.field || '(root)'} ${v.message}`, {
          place: definedOnly({ file: path, field: v.field, line: v.line }),
        }),
      );
    }
    return undefined;
  }
  return checked.value as T;
}

export function invalid(file: string, message: string, field?: string, text?: string): SvcError {
  let line: number | undefined;
  if (field && text !== undefined) {
    const parsed = parseYaml(text);
    if (parsed.ok) line = lineOfPointer(parsed.parsed, field);
  }
  return new SvcError('FOLDER_INVALID', message, { place: definedOnly({ file, field, line }) });
}
