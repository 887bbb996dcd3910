/**
 * The stat index of an unchanged folder: once a replay has read the folder and the document and
 * found them to match the fingerprint (import-unchanged.ts), the stats of those very files, taken
 * before they were read, are kept with the fingerprint in the user's cache directory
 * (folder/stat-record.ts). The next import whose files all stat as recorded (folder/file-stats.ts:
 * size, mtime, ctime, inode and device, and the racy-timestamp rule) has the same inputs without
 * reading them (replay-quick.ts). All or nothing: a file added, removed, touched or racy, another
 * document path or header (svc's build, the options, the origin) and the import reads everything.
 */
import {
  type FileStats,
  type FolderStats,
  settledBefore,
  statKey,
  topLevelNow,
} from '../../folder/file-stats.js';
import type { FolderFiles } from '../../folder/model.js';
import { readStatRecord, writeStatRecord } from '../../folder/stat-record.js';
import { replayable } from './plan-unchanged.js';

/** Raised when what a record means changes. */
const FORMAT = 'svc-folder-stats/1';

interface StatIndex {
  format: typeof FORMAT;
  /** The fingerprint's header (fingerprintHeader): svc's build, the options, the document's origin. */
  header: string;
  inputsSha256: string;
  documentSha256: string;
  document: { path: string; stat: string };
  /** Every file the fingerprint covers (plan-unchanged.ts `replayable`), by its stat key. */
  files: Record<string, string>;
}

/** The stats an import took before it read the folder and the document (this machine's clock). */
export interface StatsBefore {
  started: number;
  folder: FolderStats;
  document?: { path: string; stat: FileStats };
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
  read: FolderFiles,
  header: string,
  indexed: Indexed,
): void {
  const doc = before.document;
  if (!doc || !settledBefore(doc.stat, before.started)) return;
  const statted = [...before.folder.files.keys()].filter(replayable);
  if (statted.length !== Object.keys(read).filter(replayable).length) return;
  const files: Record<string, string> = {};
  for (const path of statted) {
    const stat = before.folder.files.get(path)!;
    if (read[path] === undefined || !settledBefore(stat, before.started)) return;
    files[path] = statKey(stat);
  }
  if (topLevelNow(dir) !== before.folder.topLevel) return;
  const index: StatIndex = {
    format: FORMAT,
    header,
    ...indexed,
    document: { path: doc.path, stat: statKey(doc.stat) },
    files,
  };
  writeStatRecord(cacheDir, dir, index);
}

/** The inputs the index vouches for, when every file and the document stat as recorded. */
export function indexedInputs(
  cacheDir: string,
  dir: string,
  now: FolderStats,
  doc: { path: string; stat: FileStats },
  header: string,
): Indexed | undefined {
  const index = readStatRecord(cacheDir, dir)?.value as Partial<StatIndex> | undefined;
  if (!index || index.format !== FORMAT || index.header !== header) return undefined;
  const { files, inputsSha256, documentSha256, document } = index;
  if (typeof inputsSha256 !== 'string' || typeof documentSha256 !== 'string' || !files) return undefined;
  if (document?.path !== doc.path || document.stat !== statKey(doc.stat)) return undefined;
  const paths = [...now.files.keys()].filter(replayable);
  if (paths.length !== Object.keys(files).length) return undefined;
  for (const path of paths)
    if (!Object.hasOwn(files, path) || files[path] !== statKey(now.files.get(path)!)) return undefined;
  return { inputsSha256, documentSha256 };
}
