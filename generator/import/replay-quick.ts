/**
 * The CLI's first try at `svc import <dir>` and `svc diff <dir>` (no other option): the unchanged
 * replay proven by the stat index (stat-index.ts) instead of reading the folder and the document.
 * It reads only what the replay itself needs (config.yaml, the fingerprint, the history) and the
 * files the fingerprint does not cover (as readFolder would, so a file that cannot be read still
 * fails the import), stats the rest (the document, the content directory), and gives importFolder's
 * replayed result but its `files`. Anything else (no index, a file that stats otherwise, a source
 * other than a local document, external $refs, a fingerprint or history that does not replay) is
 * undefined: the caller runs importFolder, which meets every problem itself. The clock is read
 * and progress reported only once the inputs are known to match; a replay that fails after that
 * (a history that does not replay, a record that cannot be appended) is undefined too, and
 * importFolder starts again from the beginning (the CLI passes neither a clock nor a progress
 * callback).
 */
import { readTexts, statFolder, topLevelNow } from '../../folder/file-stats.js';
import { loadConfigFast } from '../../folder/load-config-fast.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import { settleFolder } from '../../folder/settle-folder.js';
import { hasStatRecord } from '../../folder/stat-record.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { CONTENT_ROWS, settleChecklist, startChecklist } from './checklist-settle.js';
import { importTarget } from './import-target.js';
import type { ImportOptions, ImportResult } from './import-types.js';
import { installedVersion } from './installed-version.js';
import { fingerprintHeader, readEntry, replayable, replayUnchanged } from './plan-unchanged.js';
import { confineSource } from './read-source-bundle.js';
import { indexedInputs, sourceStats, statsApply } from './stat-index.js';

/** readFolder's limit on one file. */
const MAX_FILE_BYTES = 64 * 1024 * 1024;

export async function replayQuick(opts: ImportOptions): Promise<Omit<ImportResult, 'files'> | undefined> {
  if (!statsApply(opts)) return undefined;
  const cacheDir = opts.statCacheDir;
  const { svcVersion } = installedVersion();
  if (svcVersion === undefined) return undefined;
  try {
    // No index kept for this folder: nothing to stat (importFolder reads, and keeps one).
    if (!hasStatRecord(cacheDir, opts.dir)) return undefined;
    await settleFolder(opts.dir);
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
    const indexed = indexedInputs(cacheDir, opts.dir, stats, source, header);
    if (indexed?.documentSha256 !== entry.documentSha256) return undefined;
    if (topLevelNow(opts.dir) !== stats.topLevel) return undefined;
    return await replayed(opts, files, indexed.inputsSha256, found.target.source);
  } catch {
    return undefined;
  }
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
