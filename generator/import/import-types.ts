/**
 * The shapes an import passes between its shell (import-folder.ts) and its pure planner
 * (plan-import.ts): what a caller asks for, what the source readers hand over, what comes back.
 */
import type { SvcError } from '../../core/svc-error.js';
import type { Retirement } from '../../folder/crash-journal.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import type { HistoryRecord, ImportReport, SvcConfig } from '../../schemas/types.js';
import type { ExternalFiles } from '../parse/external-refs.js';
import type { RawFile } from '../sources/content-source.js';
import type { SourceText } from '../sources/index.js';
import type { ChecklistRow } from './checklist.js';
import type { GitAccess } from './source-reader.js';

export interface ImportOptions {
  /** The server folder (may not exist yet for a first import). */
  dir: string;
  /** First import: the config the CLI built; re-import: omitted → read from the folder. */
  config?: SvcConfig;
  /** Override the document location (--openapi): URL, absolute path, or a path relative to `dir`. */
  location?: string;
  /** Override the content directory (absolute, or relative to `dir`); else config.source.contentDir. */
  contentDir?: string;
  allowExternalRefs?: boolean;
  /**
   * svc init --force: the files already in the folder, which svc did not write. Each is written back as it
   * is and wins over a generated file of the same path (`keptUserFiles` in the result names those).
   */
  userFiles?: FolderFiles;
  /** A provider change of an app: the branch folders to retire once the write is in (crash-journal.ts). */
  retire?: Retirement;
  /** --compact: short descriptions from now on (recorded in config.yaml, so later imports keep it). */
  compact?: boolean;
  /** svc diff: compute everything, write nothing. */
  dryRun?: boolean;
  /** App-builder sources without `platformOrigin`: the platform origin template (SVC_APP_BUILDER_ORIGIN). */
  appBuilderOrigin?: string;
  /** Git sources: read this commit instead of the branch head (svc diff --ref). */
  ref?: string;
  /**
   * Git and raw-URL sources: the token (never written anywhere) and where fetched repositories
   * are cached (outside the folder).
   */
  git?: GitAccess;
  /**
   * Where the paths config.yaml names must stay (after symbolic links): by default the git work
   * tree holding `dir`; false for none. A control-service job names its scratch copy of the tree.
   */
  confineTo?: string | false;
  /** Injectable clock for deterministic tests. */
  now?: () => Date;
  /**
   * Read the folder with blocking calls (read-folder.ts): for a process with nothing else to serve
   * meanwhile (a CLI command), never for the control service.
   */
  blocking?: boolean;
  /**
   * The user's cache directory (the CLI's SVC_CACHE_DIR rule), where an unchanged replay keeps the
   * stats of the files it read (stat-index.ts), so that the next one may stat rather than read
   * them (replay-quick.ts). None: every replay reads and hashes its inputs.
   */
  statCacheDir?: string;
  /**
   * Always plan in full, even when the inputs match the fingerprint of the last no-op import
   * (plan-unchanged.ts); the result is the same, only slower (tests compare the two).
   */
  full?: boolean;
  onProgress?: (rows: ChecklistRow[]) => void;
}

export interface ImportResult {
  status: 'complete' | 'failed';
  /** Whether any file outside .svc/ changed (or would change, for a dry run). */
  changed: boolean;
  report: ImportReport;
  checklist: ChecklistRow[];
  error?: SvcError;
  /**
   * What is on disk after the import. For a dry run: the folder as it would be, with .svc/ as it
   * is plus the record (the endpoint store is not computed).
   */
  files: FolderFiles;
  /** With `userFiles`: generated paths left out because a file of the user's was kept there. */
  keptUserFiles?: string[];
  /** The history record appended (absent when nothing could be recorded). */
  record?: HistoryRecord;
  /** auth: none for a document that declares security schemes: what to say and suggest. */
  authWarning?: string;
  /**
   * What the import could not carry over whole, one line each: a tool whose input schema reached
   * INPUT_DEFS_LIMIT, a description kept as plain text because it could not be converted.
   */
  warnings?: string[];
}

/** The folder an import starts from, read and loaded (a first import has none). */
export interface PreviousFolder {
  files: FolderFiles;
  folder: FolderModel;
}

/** Something a reader could not read, kept to be raised where the import reaches it. */
export interface Unread {
  error: unknown;
}

/**
 * Everything the planner reads from outside, already read: the document, the files its external
 * $refs reach, for git sources the commit, and the content directory's files (or why they could
 * not be read).
 */
export interface SourceBundle {
  document: SourceText;
  /** Git sources: the commit read. */
  commit?: string;
  /** With --allow-external-refs: the files the document's external $refs reach, by URL. */
  externalRefs?: ExternalFiles;
  /** The content directory's files, when the import has one. */
  content?: RawFile[] | Unread;
}
