/**
 * FolderFiles → FolderModel, pure. Everything the runtime and `svc validate` trust goes
 * through here: each file is parsed and checked against schemas/, then the rules that span
 * files (unique tool names, widget references). Every problem is reported, each as a
 * FOLDER_INVALID error naming the file, the field (JSON pointer) and the line.
 */
import type { SvcError } from '../core/svc-error.js';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { forbiddenForwardHeader } from './forward-headers.js';
import {
  CONTENT_DIRS,
  type ContentEntry,
  classifyContentPath,
  parseContentEntries,
} from './content-items.js';
import { BOOKKEEPING_DIR, type FolderFiles, type FolderModel, type ToolItem } from './model.js';
import { CONFIG_FILE, invalid, loadYamlFile, MAX_FOLDER_FILE_CHARS } from './load-yaml-file.js';

export const TOOL_KEY = /^[A-Za-z0-9_-]{1,64}$/;
export { CONFIG_FILE, loadConfig, MAX_FOLDER_FILE_CHARS } from './load-yaml-file.js';
const TOOL_FILE = /^Tools\/([^/]+)\.yaml$/;

/**
 * Whether loadFolder reads a path of the folder (a directory: whether anything below it can be):
 * config.yaml, the tool files and the content. Given to readFolder as `skip` (negated), the
 * runtime and `svc validate` leave out what they never look at: `.svc/` (raw specs, history,
 * the merge base), Tools/openapi.json (GitHub's is 12 MB), the README.
 */
export function loadsPath(path: string, isDirectory: boolean): boolean {
  const slash = path.indexOf('/');
  const top = slash === -1 ? path : path.slice(0, slash);
  if (isDirectory) return top === 'Tools' ? slash === -1 : (CONTENT_DIRS as readonly string[]).includes(top);
  return path === CONFIG_FILE || TOOL_FILE.test(path) || classifyContentPath(path) !== undefined;
}

/** readFolder's `skip` for a reader that only loads the folder (loadsPath). */
export const skipUnloaded = (path: string, isDirectory: boolean): boolean => !loadsPath(path, isDirectory);

export type LoadFolderResult =
  | { ok: true; folder: FolderModel }
  | {
      ok: false;
      errors: SvcError[];
      /**
       * What did load (the valid tool files and content; config absent when it is invalid), so
       * that `svc validate` can check those too and report every problem at once, not in waves.
       */
      partial: Omit<FolderModel, 'config'> & { config?: SvcConfig };
    };

/**
 * `rendered`: for YAML files the caller has just written, the values it wrote them from (its
 * writer's text reads back as exactly these: generator/render/rendered-values.test.ts). They are
 * checked instead of parsing the text again; a value that fails is reported from the text.
 */
export function loadFolder(files: FolderFiles, rendered?: ReadonlyMap<string, unknown>): LoadFolderResult {
  const errors: SvcError[] = [];
  const paths = Object.keys(files)
    .filter((p) => p !== BOOKKEEPING_DIR && !p.startsWith(`${BOOKKEEPING_DIR}/`))
    .sort();

  const config = loadYamlFile<SvcConfig>(files, CONFIG_FILE, 'config', errors, rendered?.get(CONFIG_FILE));

  const tools: ToolItem[] = [];
  for (const path of paths) {
    const m = TOOL_FILE.exec(path);
    if (!m) continue;
    const key = m[1] ?? '';
    if (!TOOL_KEY.test(key)) {
      errors.push(
        invalid(
          path,
          `tool file name "${key}" must match ^[A-Za-z0-9_-]{1,64}$ (it is the tool's stable key)`,
        ),
      );
      continue;
    }
    const tool = loadYamlFile<SvcTool>(files, path, 'tool', errors, rendered?.get(path));
    if (tool) tools.push({ key, file: path, tool });
  }

  const entries: ContentEntry[] = [];
  for (const path of paths) {
    if (!classifyContentPath(path)) continue;
    const text = files[path] ?? '';
    if (text.length > MAX_FOLDER_FILE_CHARS) {
      errors.push(invalid(path, `file is larger than ${MAX_FOLDER_FILE_CHARS} characters`));
      continue;
    }
    entries.push({ path, text });
  }
  const content = parseContentEntries(entries, {
    code: 'FOLDER_INVALID',
    pathCode: 'FOLDER_INVALID',
    disable: false,
  });
  errors.push(...content.errors);

  checkToolNames(files, tools, errors);
  const widgets = new Set(content.items.widgets.map((w) => w.name));
  for (const { file, tool } of tools) {
    if (tool.widget !== undefined && !widgets.has(tool.widget)) {
      errors.push(
        invalid(
          file,
          `widget "${tool.widget}" does not exist (no Widgets/${tool.widget}.html)`,
          '/widget',
          files[file],
        ),
      );
    }
  }

  if (config) checkRateLimitTools(files, config, tools, errors);

  if (config)
    config.forwardHeaders?.forEach((name, i) => {
      const apiKey =
        config.auth.mode === 'api_key' && config.auth.apiKey?.in === 'header' ? config.auth.apiKey.name : '';
      const why =
        forbiddenForwardHeader(name) ??
        (name.toLowerCase() === apiKey.toLowerCase()
          ? `"${name}" carries the API key (auth.apiKey) and is never forwarded`
          : undefined);
      if (why)
        errors.push(
          invalid(CONFIG_FILE, `forwardHeaders: ${why}`, `/forwardHeaders/${i}`, files[CONFIG_FILE]),
        );
    });

  tools.sort((a, b) => a.tool.sortOrder - b.tool.sortOrder || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  if (errors.length > 0 || !config)
    return { ok: false, errors, partial: { ...(config ? { config } : {}), tools, ...content.items } };
  return { ok: true, folder: { config, tools, ...content.items } };
}

function checkToolNames(files: FolderFiles, tools: readonly ToolItem[], errors: SvcError[]): void {
  const byName = new Map<string, string>();
  for (const { file, tool } of [...tools].sort((a, b) => (a.file < b.file ? -1 : 1))) {
    const first = byName.get(tool.name);
    if (first) {
      const error = invalid(
        file,
        `tool name "${tool.name}" is already used by ${first}`,
        '/name',
        files[file],
      );
      errors.push(error);
    } else {
      byName.set(tool.name, file);
    }
  }
}

/** A per-tool rate limit must name a tool of this folder: a typo would otherwise limit nothing. */
function checkRateLimitTools(
  files: FolderFiles,
  config: SvcConfig,
  tools: readonly ToolItem[],
  errors: SvcError[],
): void {
  const perTool = config.rateLimits?.perTool;
  if (!perTool) return;
  const names = new Set(tools.map((t) => t.tool.name));
  for (const name of Object.keys(perTool)) {
    if (names.has(name)) continue;
    const field = `/rateLimits/perTool/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    errors.push(
      invalid(
        CONFIG_FILE,
        `rateLimits.perTool names "${name}", which is no tool of this folder`,
        field,
        files[CONFIG_FILE],
      ),
    );
  }
}
