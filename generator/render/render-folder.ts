/**
 * FolderModel → FolderFiles, pure and byte-for-byte deterministic. `.svc/` bookkeeping is not
 * rendered here: the import adds it.
 */
import { SvcError } from '../../core/svc-error.js';
import { textWithNewline } from '../../core/text-with-newline.js';
import { loadFolder } from '../../folder/load-folder.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import { parseYaml } from '../../folder/yaml-file.js';
import { decodedJson } from '../parse/decoded-json.js';
import { renderCompose } from './render-compose.js';
import { orderedConfig, renderOrderedConfig } from './render-config.js';
import { renderContent } from './render-content.js';
import { renderEnvExample } from './render-env-example.js';
import { GITIGNORE_FILE, renderGitignore } from './render-gitignore.js';
import { renderReadme } from './render-readme.js';
import { isPrettyJsonOf } from './pretty-json-text.js';
import { orderedTool, renderOrderedTool } from './render-tool.js';

export interface RenderExtras {
  /** The source document's text (JSON or YAML), written pretty-printed as Tools/openapi.json. */
  openapi?: string;
}

export const OPENAPI_FILE = 'Tools/openapi.json';
const TOOL_KEY = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A new server folder with no tools and no content yet (a manual app, an unverified app-builder
 * branch), with the `.gitignore` a new folder gets.
 */
export function renderEmptyFolder(config: FolderModel['config']): FolderFiles {
  return sortedFiles({
    ...renderFolder({ config, tools: [], skills: [], prompts: [], resources: [], docs: [], widgets: [] }),
    [GITIGNORE_FILE]: renderGitignore(),
  });
}

export function renderFolder(folder: FolderModel, extras: RenderExtras = {}): FolderFiles {
  return renderFolderValues(folder, extras).files;
}

/**
 * The rendered files, and for each YAML file of the model (config.yaml, the tool files) the value
 * its text was written from. The writer's text reads back as exactly that value
 * (rendered-values.test.ts proves it on GitHub's 1,223 tools), so the check after rendering
 * validates the values rather than parsing 3 MB of YAML it has just written.
 */
export function renderFolderValues(
  folder: FolderModel,
  extras: RenderExtras = {},
): { files: FolderFiles; values: Map<string, unknown> } {
  const config = orderedConfig(folder.config);
  const values = new Map<string, unknown>([['config.yaml', config]]);
  const files = renderFolderFrame(folder, extras, config);
  for (const { key, tool } of folder.tools) {
    const ordered = orderedTool(tool);
    values.set(toolFile(key), ordered);
    files[toolFile(key)] = renderOrderedTool(ordered);
  }
  return { files: sortedFiles(files), values };
}

/** Tools/<key>.yaml */
export function toolFile(key: string): string {
  return `Tools/${key}.yaml`;
}

/**
 * Every file of the folder but the tool files, unsorted; the tool keys are checked as they are
 * rendered (before the content). A dry run renders a tool file only when it is read (plan-files.ts).
 */
export function renderFolderFrame(
  folder: FolderModel,
  extras: RenderExtras = {},
  config: unknown = orderedConfig(folder.config),
): FolderFiles {
  const keys = new Set<string>();
  for (const { key } of folder.tools) {
    const path = toolFile(key);
    if (!TOOL_KEY.test(key)) {
      throw new SvcError('FOLDER_INVALID', `tool key "${key}" must match ^[A-Za-z0-9_-]{1,64}$`, {
        place: { file: path },
      });
    }
    if (keys.has(key))
      throw new SvcError('FOLDER_INVALID', `two tools share the key "${key}"`, { place: { file: path } });
    keys.add(key);
  }
  const files: FolderFiles = {
    'config.yaml': renderOrderedConfig(config),
    'README.md': renderReadme(folder),
    'docker-compose.yml': renderCompose(),
    '.env.example': renderEnvExample(folder.config),
    ...renderContent(folder),
  };
  if (extras.openapi !== undefined) files[OPENAPI_FILE] = renderOpenApi(extras.openapi);
  return files;
}

/** Renders, then loads what was rendered: the generator validates what it writes. */
export function renderFolderChecked(
  folder: FolderModel,
  extras: RenderExtras = {},
): { ok: true; files: FolderFiles } | { ok: false; errors: SvcError[] } {
  let rendered: ReturnType<typeof renderFolderValues>;
  try {
    rendered = renderFolderValues(folder, extras);
  } catch (e) {
    if (e instanceof SvcError) return { ok: false, errors: [e] };
    throw e;
  }
  const { files, values } = rendered;
  const loaded = loadFolder(files, values);
  return loaded.ok ? { ok: true, files } : { ok: false, errors: loaded.errors };
}

/** The source document as 2-space JSON, in its own key order (a YAML source is converted). */
export function renderOpenApi(text: string): string {
  // The import decoded this very text already: its value, not a second parse of 10 MB.
  const value = decodedJson(text) ?? parseSource(text);
  // A document published as 2-space JSON (GitHub's) is its own rendering: no second copy is made.
  if (isPrettyJsonOf(value, text)) return textWithNewline(text);
  return `${JSON.stringify(value, null, 2)}\n`;
}

function parseSource(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const parsed = parseYaml(text);
    if (!parsed.ok) {
      throw new SvcError(
        'SPEC_INVALID',
        `the source document cannot be re-serialized: ${parsed.problems[0]?.message}`,
        {
          place: { file: OPENAPI_FILE },
        },
      );
    }
    return parsed.parsed.value;
  }
}

export function sortedFiles(files: FolderFiles): FolderFiles {
  const out: FolderFiles = {};
  for (const path of Object.keys(files).sort()) out[path] = files[path] as string;
  return out;
}
