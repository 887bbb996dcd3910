/**
 * What the action needs from svc itself, as one small interface: the per-endpoint diff between two states
 * of a folder (from the normalized endpoint lists its .svc/ history keeps) and a re-import. svc-engine.ts
 * binds it to the generator; runAction takes it as a parameter so each mode is tested on its own terms.
 */
import type { FolderFiles } from '../../folder/model.js';
import type { ChangeLevel } from '../../generator/diff/index.js';
import type { GitAccess } from '../../generator/import/source-reader.js';

export type { ChangeLevel };

export interface EndpointChangeView {
  /** "METHOD /path". */
  endpoint: string;
  kind: 'added' | 'removed' | 'changed';
  breaking: boolean;
  /** One line per rule hit ("request-parameter-became-required: …"). */
  details: string[];
  /** The rule ids of a changed endpoint, in the order of `details` (to tell documentation-only changes). */
  ids?: string[];
}

export interface FolderEndpointDiff {
  changes: EndpointChangeView[];
  /** Markdown of the diff, when the engine renders one (a report of the folder's latest import). */
  markdown?: string;
}

export interface ReimportView {
  status: 'complete' | 'failed';
  /** Whether a file of the folder outside .svc/ changed (or would change, in a dry run). */
  changed: boolean;
  summary: string;
  markdown: string;
  /** Breaking changes that hit enabled tools (the report's warnings about enabled tools). */
  breakingEnabled: number;
  /** The report's other warnings (stale tools, customizations reset, skipped content). */
  warnings: number;
  /** What hits enabled tools, one line each (the report's enabled-tool warnings), so a summary can say why. */
  hits?: string[];
  error?: string;
}

export interface SvcEngine {
  endpointDiff(base: FolderFiles, head: FolderFiles): FolderEndpointDiff;
  /** `git`: how to read a git or raw-URL source (the source-token input); absent → public sources only. */
  reimport(opts: { dir: string; dryRun: boolean; git?: GitAccess }): Promise<ReimportView>;
}
