/**
 * The CLI's first try at `svc import <dir>` and `svc diff <dir>` (no other option): the unchanged
 * replay without importFolder's reading of the whole folder as text. It reads what the replay
 * itself needs (config.yaml, the fingerprint, the history) and the files the fingerprint does not
 * cover (as readFolder would, so a file that cannot be read still fails the import), then proves
 * the inputs unchanged by the stat index (stat-index.ts: nothing else read), else by hashing the
 * folder's files and the document as bytes, not decoded (a local document without a content
 * directory), and keeps their stats for the next time. It gives importFolder's replayed result but
 * its `files`. Anything else (a file that stats and hashes otherwise, another source, external
 * $refs, a fingerprint or history that does not replay) is undefined: the caller runs importFolder,
 * which meets every problem itself. The clock is read and progress reported only once the inputs
 * are known to match; a replay that fails after that (a history that does not replay, a record
 * that cannot be appended) is undefined too, and importFolder starts again from the beginning (the
 * CLI passes neither a clock nor a progress callback).
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import {
  type FolderStats,
  fileBytes,
  readBytes,
  readTexts,
  statFolder,
  topLevelNow,
} from '../../folder/file-stats.js';
import { loadConfigFast } from '../../folder/load-config-fast.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import { settleFolder } from '../../folder/settle-folder.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { CONTENT_ROWS, settleChecklist, startChecklist } from './checklist-settle.js';
import { importTarget } from './import-target.js';
import type { ImportOptions, ImportResult } from './import-types.js';
import { installedVersion } from './installed-version.js';
import { DEFAULT_MAX_SOURCE_BYTES } from '../sources/openapi-source.js';
import {
  fingerprintHeader,
  readEntry,
  replayable,
  replayUnchanged,
  unchangedInputsOfBytes,
} from './plan-unchanged.js';
import { confineSource } from './read-source-bundle.js';
import { indexedInputs, keepStatIndex, type SourceStats, sourceStats, statsApply } from './stat-index.js';

/** readFolder's limit on one file. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export async function replayQuick(
  opts: ImportOptions,
  /** `hash: false` (tests): the stats alone, nothing read and hashed. */
  { hash = true } = {},
): Promise<Omit<ImportResult, 'files'> | undefined> {
  if (!statsApply(opts)) return undefined;
  const cacheDir = opts.statCacheDir;
  const { svcVersion } = installedVersion();
  if (svcVersion === undefined) return undefined;
  try {
    await settleFolder(opts.dir);
    // Before the stats: the moment the racy-timestamp rule goes by, should they be kept.
    const started = Date.now();
    const stats = statFolder(opts.dir);
    if (!stats) return undefined;
    if ([...stats.files.values()].some((s) => s.size > BigInt(MAX_FILE_BYTES))) return undefined;
    const needed = [...stats.files.keys()].filter((p) => !replayable(p) || p === 'config.yaml');
    const files = readTexts(opts.dir, needed);
    const entry = readEntry(files);
    if (!entry) return undefined;
    // As svc wrote it (else importFolder reads it): the `yaml` package is not loaded.
    const config = loadConfigFast(files);
    if (config?.source.kind !== 'openapi') return undefined;
    const previous = { files, folder: { config } as FolderModel };
    const found = importTarget(previous, opts);
    if (!found.ok) return undefined;
    await confineSource(previous, opts);
    const source = sourceStats(found.target, opts.dir);
    if (!source) return undefined;
    // The header as the index keeps it: svc's build, the options, where the document is read.
    const header = fingerprintHeader(svcVersion, opts, { document: { origin: source.document.path } });
    const { documentSha256 } = entry;
    const indexed = indexedInputs(cacheDir, opts.dir, stats, source, header);
    // Not vouched for by the stats: the bytes, hashed (and their stats kept once they replay).
    const inputsSha256 =
      indexed?.documentSha256 === documentSha256
        ? indexed.inputsSha256
        : hash
          ? hashedInputs(opts.dir, stats, source, header, documentSha256)
          : undefined;
    if (inputsSha256 === undefined) return undefined;
    if (topLevelNow(opts.dir) !== stats.topLevel) return undefined;
    const result = await replayed(opts, files, inputsSha256, found.target.source);
    if (result && indexed?.inputsSha256 !== inputsSha256) {
      const before = { started, folder: stats, source };
      keepStatIndex(cacheDir, opts.dir, before, [...stats.files.keys()], header, {
        inputsSha256,
        documentSha256,
      });
    }
    return result;
  } catch {
    return undefined;
  }
}

/**
 * The fingerprint of the folder's files and the document as bytes, not decoded (the folder and
 * the document read as readFolder and readOpenApiSource read them): undefined for a content
 * directory, a document of another SHA-256 (an upgrade: the folder is not read), or one that is
 * not UTF-8 without a BOM (whose SHA-256 is of its decoded text).
 */
function hashedInputs(
  dir: string,
  stats: FolderStats,
  source: SourceStats,
  header: string,
  documentSha256: string,
): string | undefined {
  if (source.content || source.document.stat.size > BigInt(DEFAULT_MAX_SOURCE_BYTES)) return undefined;
  const document = fileBytes(source.document.path);
  if (!document || (document[0] === 0xef && document[1] === 0xbb && document[2] === 0xbf)) return undefined;
  if (!isUtf8(document)) return undefined;
  if (createHash('sha256').update(document).digest('hex') !== documentSha256) return undefined;
  const files = readBytes(dir, [...stats.files.keys()].filter(replayable));
  return unchangedInputsOfBytes(header, document, documentSha256, files);
}

/** importFolder's replay, from the point where the inputs are known to match. */
async function replayed(
  opts: ImportOptions,
  files: FolderFiles,
  inputsSha256: string,
  source: { contentDir?: string; toolsOnly: boolean },
): Promise<Omit<ImportResult, 'files'> | undefined> {
  const now = opts.now ?? (() => new Date());
  const statusLog: HistoryRecord['statusLog'] = [{ status: 'pending', at: now().toISOString() }];
  const replay = replayUnchanged(files, inputsSha256, statusLog, now);
  if (!replay) return undefined;
  const checklist = startChecklist(source, opts.onProgress);
  checklist.processing(['tools']);
  // As importFolder's replay: the content rows are processing once the plan would reach them.
  if (source.contentDir !== undefined) checklist.processing(CONTENT_ROWS);
  if (!opts.dryRun) {
    // A record that cannot be appended: importFolder tries again and reports the failure.
    const { appendRecord } = await import('../../folder/append-record.js');
    await appendRecord(opts.dir, replay.append.path, replay.append.text);
  }
  settleChecklist(checklist, replay.counts);
  return { ...replay.result, checklist: checklist.snapshot() };
}
