import type { ContentItems, FolderModel, ToolItem } from '../../folder/model.js';
import type { SvcTool } from '../../schemas/types.js';
import { mergeContent } from './merge-content.js';
import type { MergeNote } from './merge-notes.js';
import { mergeTools } from './merge-tools.js';

export interface MergeInput {
  previous?: FolderModel;
  /** path → content hash of what the last import wrote (from .svc/; see content-hashes.ts). */
  lastWritten?: Record<string, string>;
  /** path → content hash of each content file in the folder now; tells hand edits apart. */
  currentHashes?: Record<string, string>;
  tools: { key: string; tool: SvcTool }[];
  /** Folder key → the tool the previous import generated for it: the base of the three-way merge. */
  bases?: ReadonlyMap<string, SvcTool>;
  /** Without stored bases: folder key → the tool as known generators write it (derived-bases.ts). */
  earlier?: ReadonlyMap<string, readonly SvcTool[]>;
  /** This import's content items; undefined when it reads no content directory. */
  content?: ContentItems;
}

export interface MergeResult {
  tools: ToolItem[];
  content: ContentItems;
  notes: MergeNote[];
  /** Folder key → the tool generated now (or kept as base, for stale tools): the next import's bases. */
  generatedByKey: Map<string, SvcTool>;
  /** Content files kept from the folder as they are (hand-made or hand-edited items, or no content import). */
  keptFiles: string[];
}

/** The folder's tools and content after an import, from what was there and what the source says. Pure. */
export function mergeImport(input: MergeInput): MergeResult {
  const tools = mergeTools(input.previous?.tools ?? [], input.tools, input.bases, input.earlier);
  const content = mergeContent({
    ...(input.previous ? { previous: input.previous } : {}),
    ...(input.content ? { content: input.content } : {}),
    lastWritten: input.lastWritten ?? {},
    currentHashes: input.currentHashes ?? {},
  });
  return {
    tools: tools.tools,
    content: content.content,
    notes: [...tools.notes, ...content.notes],
    generatedByKey: tools.generatedByKey,
    keptFiles: content.keptFiles,
  };
}
