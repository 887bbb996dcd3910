/**
 * The server folder in memory. `FolderFiles` is the folder as text (what is written to disk
 * and what the programmatic export returns as `files`); `FolderModel` is the same folder
 * parsed and validated against schemas/. The generator renders a model into files; the
 * runtime and `svc validate` load files into a model.
 *
 * Folder layout (spec 2.9), every path relative to the server folder:
 *   config.yaml                 SvcConfig
 *   Tools/<key>.yaml            SvcTool; <key> matches ^[A-Za-z0-9_-]{1,64}$ and never changes on rename
 *   Tools/openapi.json          the source document, for reference only
 *   Skills/<name>.md            SkillFrontmatter + body
 *   Prompts/<name>.md           PromptFrontmatter + body
 *   Resources/<name>.md         ResourceFrontmatter + body
 *   Docs/<slug>.md|.mdx         DocFrontmatter + body; slug may hold up to 3 directory levels
 *   Widgets/<name>.html         + Widgets/<name>.json (WidgetSidecar)
 *   docker-compose.yml, .env.example, README.md
 *   .svc/                       import bookkeeping (history, raw specs, hashes); ignored by the runtime, left out of exports
 */
import type {
  DocFrontmatter,
  PromptFrontmatter,
  ResourceFrontmatter,
  SkillFrontmatter,
  SvcConfig,
  SvcTool,
  WidgetSidecar,
} from '../schemas/types.js';

/** Folder-relative path (forward slashes) → file contents. */
export type FolderFiles = Record<string, string>;

export const BOOKKEEPING_DIR = '.svc';
export const CONTENT_KINDS = ['skills', 'prompts', 'widgets', 'resources', 'docs'] as const;
export type ContentKind = (typeof CONTENT_KINDS)[number];

export interface ToolItem {
  /** File stem: Tools/<key>.yaml. Stable across renames; the tool's identity in the folder. */
  key: string;
  file: string;
  tool: SvcTool;
}

export interface ContentItem<F> {
  /** File name without extension (for docs: the slug, which may contain "/"). */
  name: string;
  /** Folder-relative path of the file. */
  file: string;
  frontmatter: F;
  /** Markdown body after the frontmatter fence. */
  body: string;
}

export interface DocItem extends ContentItem<DocFrontmatter> {
  /** Frontmatter title, else the first heading of the body, else the slug. */
  title: string;
}

export interface WidgetItem {
  name: string;
  /** Widgets/<name>.html */
  file: string;
  /** Widgets/<name>.json */
  sidecarFile: string;
  html: string;
  sidecar: WidgetSidecar;
}

export interface ContentItems {
  skills: ContentItem<SkillFrontmatter>[];
  prompts: ContentItem<PromptFrontmatter>[];
  resources: ContentItem<ResourceFrontmatter>[];
  docs: DocItem[];
  widgets: WidgetItem[];
}

export interface FolderModel extends ContentItems {
  config: SvcConfig;
  /** Sorted by sortOrder, then key. */
  tools: ToolItem[];
}
