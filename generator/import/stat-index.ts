/**
 * The stat index of an unchanged folder: once a replay has read the folder, the document and the
 * content directory and found them to match the fingerprint (import-unchanged.ts, or
 * replay-quick.ts hashing their bytes), the stats of those very files, taken before they were
 * read, are kept with the fingerprint in the user's cache directory (folder/stat-record.ts). The
 * next import whose files all stat as recorded (folder/file-stats.ts: size, mtime, ctime, inode
 * and device, and the racy-timestamp rule) has the same inputs without reading them
 * (replay-quick.ts). All or nothing: a file added, removed, touched or racy (in the content
 * directory's kind directories, any file or directory, read or not), another document path or
 * header (svc's build, the options, the origin) and the inputs are read and hashed again.
 */
import { isAbsolute, resolve } from 'node:path';
import { CONTENT_DIRS } from '../../folder/content-paths.js';
import {
  type FileStats,
  type FolderStats,
  fileStat,
  settledBefore,
  statKey,
  statTree,
  type TreeStats,
  topLevelNow,
} from '../../folder/file-stats.js';
import { readStatRecord, writeStatRecord } from '../../folder/stat-record.js';
import type { ImportTarget } from './import-target.js';
import type { ImportOptions } from './import-types.js';
import { replayable } from './plan-unchanged.js';

/** Raised when what a record means changes. */
const FORMAT = 'svc-folder-stats/2';

/** The entries of a content directory that readContentDir reads: its kind directories, both spellings. */
const CONTENT_TOP = CONTENT_DIRS.flatMap((kind) => [kind, kind.toLowerCase()]);

interface StatIndex {
  format: typeof FORMAT;
  /** The fingerprint's header (fingerprintHeader): svc's build, the options, the document's origin. */
  header: string;
  inputsSha256: string;
  documentSha256: string;
  document: { path: string; stat: string };
  /** The content directory: its real path, its files by stat key, its directories. */
  content: { root: string; files: Record<string, string>; dirs: string[] } | null;
  /** Every file the fingerprint covers (plan-unchanged.ts `replayable`), by its stat key. */
  files: Record<string, string>;
}

/** The stats an import took before it read the folder and the document (this machine's clock). */
export interface StatsBefore {
  started: number;
  folder: FolderStats;
  /** Set once the source is known, when it is a local document (sourceStats). */
  source?: SourceStats;
}

/**
 * Whether an import with these options may be proven by stats (replay-quick.ts), and so whether
 * its replay keeps them: a plain `svc import <dir>` or `svc diff <dir>`, with a cache directory.
 */
export function statsApply(opts: ImportOptions): opts is ImportOptions & { statCacheDir: string } {
  if (!opts.statCacheDir || opts.config || opts.full || opts.userFiles || opts.compact) return false;
  if (opts.allowExternalRefs || opts.ref !== undefined) return false;
  return opts.location === undefined && opts.contentDir === undefined;
}

/** The stats of a local document and of its content directory, if it has one. */
export interface SourceStats {
  document: { path: string; stat: FileStats };
  content?: TreeStats;
}

/**
 * The stats of the source an import reads, where readSourceBundle reads it, when it is a local
 * document (with or without a content directory) and no external $refs: undefined for any other
 * source (a URL, git, a raw URL, the app builder), or one that does not stat.
 */
export function sourceStats(target: ImportTarget, dir: string): SourceStats | undefined {
  const { location, source, contentDir, allowExternalRefs } = target;
  if (target.config.source.kind !== 'openapi' || allowExternalRefs || source.toolsOnly) return undefined;
  if (location === '' || /^https?:\/\//i.test(location)) return undefined;
  const path = isAbsolute(location) ? location : resolve(dir, location);
  const stat = fileStat(path);
  if (!stat) return undefined;
  if (contentDir === undefined) return { document: { path, stat } };
  const content = statTree(isAbsolute(contentDir) ? contentDir : resolve(dir, contentDir), CONTENT_TOP);
  return content ? { document: { path, stat }, content } : undefined;
}

/** What the index vouches for: the inputs' fingerprint, as the last replay that read them found it. */
export interface Indexed {
  inputsSha256: string;
  documentSha256: string;
}

/**
 * After a replay that read `files` and matched `indexed`: keeps the stats taken before, when they
 * cover exactly the files read, each was settled before the reading started, and no swap ran since.
 */
export function keepStatIndex(
  cacheDir: string,
  dir: string,
  before: StatsBefore,
  /** The paths of the folder files the replay read. */
  read: readonly string[],
  header: string,
  indexed: Indexed,
): void {
  const { source, started } = before;
  if (!source || !settledBefore(source.document.stat, started)) return;
  const content = source.content;
  if (content && [...content.files.values()].some((stat) => !settledBefore(stat, started))) return;
  const statted = [...before.folder.files.keys()].filter(replayable);
  const wasRead = new Set(read.filter(replayable));
  if (statted.length !== wasRead.size) return;
  const files: Record<string, string> = {};
  for (const path of statted) {
    const stat = before.folder.files.get(path)!;
    if (!wasRead.has(path) || !settledBefore(stat, started)) return;
    files[path] = statKey(stat);
  }
  if (topLevelNow(dir) !== before.folder.topLevel) return;
  const index: StatIndex = {
    format: FORMAT,
    header,
    ...indexed,
    document: { path: source.document.path, stat: statKey(source.document.stat) },
    content: content ? { root: content.root, files: keyed(content.files), dirs: content.dirs } : null,
    files,
  };
  writeStatRecord(cacheDir, dir, index);
}

/** The inputs the index vouches for, when every file, the document and the content stat as recorded. */
export function indexedInputs(
  cacheDir: string,
  dir: string,
  now: FolderStats,
  source: SourceStats,
  header: string,
): Indexed | undefined {
  const index = readStatRecord(cacheDir, dir)?.value as Partial<StatIndex> | undefined;
  if (!index || index.format !== FORMAT || index.header !== header) return undefined;
  const { files, inputsSha256, documentSha256, document, content } = index;
  if (typeof inputsSha256 !== 'string' || typeof documentSha256 !== 'string' || !files) return undefined;
  const doc = source.document;
  if (document?.path !== doc.path || document.stat !== statKey(doc.stat)) return undefined;
  if (!sameContent(content, source.content)) return undefined;
  const paths = [...now.files.keys()].filter(replayable);
  return sameKeys(files, paths, (path) => now.files.get(path)!)
    ? { inputsSha256, documentSha256 }
    : undefined;
}

function sameContent(kept: StatIndex['content'] | undefined, now: TreeStats | undefined): boolean {
  if (kept === null || now === undefined) return kept === null && now === undefined;
  if (!kept) return false;
  if (kept.root !== now.root || kept.dirs?.join('\0') !== now.dirs.join('\0')) return false;
  return sameKeys(kept.files ?? {}, [...now.files.keys()], (path) => now.files.get(path)!);
}

/** Whether `kept` holds exactly `paths`, each with the stat key of its stat now. */
function sameKeys(kept: Record<string, string>, paths: string[], stat: (path: string) => FileStats): boolean {
  if (paths.length !== Object.keys(kept).length) return false;
  return paths.every((path) => Object.hasOwn(kept, path) && kept[path] === statKey(stat(path)));
}

function keyed(stats: Map<string, FileStats>): Record<string, string> {
  return Object.fromEntries([...stats].map(([path, stat]) => [path, statKey(stat)]));
}
