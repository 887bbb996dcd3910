/**
 * Planning, steps 3 and 4: merge what was generated with what is in the folder, then render the
 * folder (validated), keeping the bytes of what did not change or must not change.
 */
import { sameJson } from '../../core/canonical-json.js';
import { isManagedPath } from '../../folder/folder-paths.js';
import { folderInvalid } from '../../folder/folder-problems.js';
import type { ContentItems, FolderFiles, FolderModel } from '../../folder/model.js';
import { SvcError } from '../../core/svc-error.js';
import type { Endpoint, HistoryRecord, SvcTool } from '../../schemas/types.js';
import {
  isBookkeeping,
  lastComplete,
  loadEndpoints,
  readGenerated,
  readHistory,
  readWritten,
  WRITTEN_FILE,
} from '../history/index.js';
import { contentHashes, derivedBases, firstReleaseTools, mergeImport } from '../merge/index.js';
import {
  README_SIGNATURE,
  renderFolderChecked,
  renderFolderFrame,
  renderTool,
  toolFile,
} from '../render/index.js';
import { type BuildToolsOptions, buildTools } from '../tools/index.js';
import { checklistKindOfPath } from './checklist.js';
import { StepFailure } from './failed-import.js';
import type { PreviousFolder } from './import-types.js';
import { patchYaml } from './patch-yaml.js';
import { compactOptions, type PlannedTools } from './plan-tools.js';

export interface PlannedMerge {
  merged: ReturnType<typeof mergeImport>;
  records: HistoryRecord[];
  last: HistoryRecord | undefined;
  lastWritten: Record<string, string>;
}

export function planMerge(
  previous: PreviousFolder | undefined,
  planned: PlannedTools,
  content: ContentItems | undefined,
): PlannedMerge {
  const records = previous ? readHistory(previous.files) : [];
  const lastWritten = previous ? readWritten(previous.files, WRITTEN_FILE) : {};
  const last = lastComplete(records);
  // Only content items are told apart by hash (tools by a three-way merge with what the
  // previous import generated: stored, or for older folders made again from its endpoints).
  const bases = previous ? readGenerated(previous.files) : undefined;
  // No stored bases (a folder from an older svc): candidates for reconstructing them, from
  // the previous import's endpoints, or today's for files whose endpoint did not change.
  const earlier =
    previous && !bases
      ? derivedBases(
          previous.folder.tools,
          earlierGenerations(
            last?.endpoints ? loadEndpoints(previous.files, last.endpoints) : planned.endpoints,
            {
              ...compactOptions(planned.config, previous.folder),
              ...(planned.markdown ? { markdown: planned.markdown } : {}),
            },
          ),
          !last?.endpoints,
        )
      : undefined;
  const merged = mergeImport({
    ...(previous ? { previous: previous.folder } : {}),
    ...(bases ? { bases } : {}),
    ...(earlier ? { earlier } : {}),
    lastWritten,
    currentHashes: previous ? contentHashes(previous.folder) : {},
    tools: planned.tools,
    ...(content ? { content } : {}),
  });
  return { merged, records, last, lastWritten };
}

/** The tools known generators make of these endpoints: today's rules, then the first release's. */
function earlierGenerations(endpoints: Endpoint[], options: BuildToolsOptions) {
  return [buildTools(endpoints, options), firstReleaseTools(endpoints)];
}

/**
 * What is written is validated by loading it back; a dry run writes nothing and skips that. Nor
 * does it render a tool file until one is read (lazyFiles): svc diff reads none when a file
 * rendered before them (the document, config.yaml) already tells that the import changes something.
 */
export function planFiles(
  previous: PreviousFolder | undefined,
  model: FolderModel,
  text: string,
  merged: PlannedMerge['merged'],
  dryRun: boolean,
): FolderFiles {
  const rendered = dryRun ? renderUnchecked(model, text) : renderFolderChecked(model, { openapi: text });
  if (!rendered.ok) {
    const first = rendered.errors[0]!;
    throw new StepFailure(
      checklistKindOfPath(first.place.file) ?? 'tools',
      folderInvalid(rendered.errors, 'the imported folder'),
    );
  }
  if (!previous) return lazyFiles(rendered.files);
  return keepPreviousBytes(rendered.files, previous, model, merged);
}

/** A file's text, or how to render it when it is read. */
type Planned = string | (() => string);

function keepPreviousBytes(
  rendered: Record<string, Planned>,
  { files: was, folder: old }: PreviousFolder,
  model: FolderModel,
  merged: PlannedMerge['merged'],
): FolderFiles {
  const files: Record<string, Planned> = { ...rendered };
  for (const path of merged.keptFiles) if (was[path] !== undefined) files[path] = was[path]!;
  // A file whose meaning did not change keeps its bytes (and any comment a reviewer added).
  if (was['config.yaml'] !== undefined && sameJson(old.config, model.config))
    files['config.yaml'] = was['config.yaml'];
  const before = new Map(old.tools.map((t) => [t.file, t.tool]));
  for (const item of merged.tools) {
    const tool = before.get(item.file);
    const bytes = was[item.file];
    if (!tool || bytes === undefined) continue;
    const planned = files[item.file];
    if (typeof planned === 'function') {
      files[item.file] = () => {
        const text = planned();
        return keptToolText(text, tool, bytes, item.tool) ?? text;
      };
    } else {
      const kept = keptToolText(planned, tool, bytes, item.tool);
      if (kept !== undefined) files[item.file] = kept;
    }
  }
  // A README.md svc did not write (kept by `svc init --force`) stays the user's.
  const readme = was['README.md'];
  if (readme !== undefined && !readme.includes(README_SIGNATURE)) files['README.md'] = readme;
  // Files in managed directories that svc does not model (an image beside a doc) stay.
  for (const [path, text] of Object.entries(was)) {
    if (isBookkeeping(path) || path in files || !isManagedPath(path)) continue;
    if (loadFolderKnows(path)) continue;
    files[path] = text;
  }
  return lazyFiles(files);
}

/**
 * A tool file's text given its rendering and the previous import's file: the file's own bytes
 * when the tool means the same, patched when it was laid out or commented by hand and changed.
 * Undefined: the file keeps `planned` (a file the import does not render is then left out).
 */
function keptToolText(
  planned: string | undefined,
  tool: SvcTool,
  bytes: string,
  next: SvcTool,
): string | undefined {
  if (bytes === planned) return planned;
  if (sameJson(tool, next)) return bytes;
  if (bytes === renderTool(tool)) return planned;
  // Laid out or commented by hand: the changes go into the file's own YAML document.
  return patchYaml(bytes, next as unknown as Record<string, unknown>) ?? planned;
}

/** The files, each one that is still to render rendered (once) when its property is read. */
function lazyFiles(planned: Record<string, Planned>): FolderFiles {
  const files: FolderFiles = {};
  for (const [path, text] of Object.entries(planned)) {
    if (typeof text === 'string') {
      files[path] = text;
      continue;
    }
    const settle = (value: string) => {
      Object.defineProperty(files, path, { value, writable: true, enumerable: true, configurable: true });
      return value;
    };
    Object.defineProperty(files, path, {
      get: () => settle(text()),
      set: settle,
      enumerable: true,
      configurable: true,
    });
  }
  return files;
}

/** The folder as renderFolder makes it, but for a tool file: how to render it. */
function renderUnchecked(
  model: FolderModel,
  text: string,
): { ok: true; files: Record<string, Planned> } | { ok: false; errors: SvcError[] } {
  try {
    const files: Record<string, Planned> = renderFolderFrame(model, { openapi: text });
    for (const { key, tool } of model.tools) files[toolFile(key)] = () => renderTool(tool);
    return { ok: true, files: sortedPlanned(files) };
  } catch (error) {
    if (error instanceof SvcError) return { ok: false, errors: [error] };
    throw error;
  }
}

/** In the order renderFolder gives its files. */
function sortedPlanned(files: Record<string, Planned>): Record<string, Planned> {
  const out: Record<string, Planned> = {};
  for (const path of Object.keys(files).sort()) out[path] = files[path]!;
  return out;
}

/** Paths the folder loader reads as tools, the document or content (svc re-renders those). */
function loadFolderKnows(path: string): boolean {
  if (/^Tools\/[^/]+\.(yaml|json)$/.test(path)) return true;
  return checklistKindOfPath(path) !== undefined && /\.(md|mdx|html|json)$/i.test(path);
}
