/**
 * The one import shell, for a first import (`svc init`) and every re-import (`svc import`,
 * `svc diff`, the Action, the control service): read the folder → read the source bundle →
 * plan (plan-import.ts, pure) → write through folder/. A dry run plans and writes nothing.
 *
 * Fail closed: a failed import writes nothing but its history record (and a failed first
 * import writes nothing at all). Idempotent: the same source again changes no file but the
 * history. Deterministic: the clock is injected; everything else comes from the inputs.
 * Unchanged: when the inputs match the fingerprint the last no-op import recorded, the result is
 * known without planning (plan-unchanged.ts): only its history record is appended.
 */
import { appendRecord } from '../../folder/append-record.js';
import { readFolder } from '../../folder/read-folder.js';
import { writeFolder } from '../../folder/write-folder.js';
import type { FolderFiles } from '../../folder/model.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { Checklist } from './checklist.js';
import { asSvcError, type FailedImport, type FailureContext, failedImport } from './failed-import.js';
import { type ImportTarget, importTarget } from './import-target.js';
import type { ImportOptions, ImportResult, PreviousFolder, SourceBundle } from './import-types.js';
import { CONTENT_ROWS, settleChecklist, startChecklist } from './checklist-settle.js';
import { type UnchangedTry, tryUnchanged } from './import-unchanged.js';
import { fingerprintHeader, plannedFiles, type Replayed } from './plan-unchanged.js';
import { keepStatIndex, type StatsBefore, statsApply } from './stat-index.js';
import { statFolder } from '../../folder/file-stats.js';
import { installedVersion } from './installed-version.js';
import { confineSource, readSourceBundle } from './read-source-bundle.js';

export async function importFolder(given: ImportOptions): Promise<ImportResult> {
  // The planner stays pure: svc's version, which the unchanged fingerprint names, is read here.
  const opts = { ...given, ...installedVersion() };
  const now = opts.now ?? (() => new Date());
  const statusLog: HistoryRecord['statusLog'] = [{ status: 'pending', at: now().toISOString() }];
  const run: FailureContext = {
    checklist: new Checklist(false, opts.onProgress),
    statusLog,
    now,
    location: opts.location ?? '',
  };
  let previous: PreviousFolder | undefined;
  let early: UnchangedTry | undefined;
  if (!opts.config) {
    let files: FolderFiles | undefined;
    try {
      const before = statsBefore(opts);
      files = await readFolder(opts.dir, opts.blocking ? { blocking: true } : {});
      early = await tryUnchanged(files, opts, statusLog, now, before);
      if (early?.replayed) {
        const result = await replay(early.target, early.replayed, { ...run, previousFiles: files }, opts);
        if (before && result.status === 'complete') keepIndex(opts, before, files, early);
        return result;
      }
      previous = (await import('./open-previous.js')).openPrevious(files);
    } catch (error) {
      return ended(
        failedImport({ ...run, ...(files ? { previousFiles: files } : {}) }, asSvcError(error), 'tools'),
        opts,
      );
    }
    run.previousFiles = files;
  }
  const found = importTarget(previous, opts);
  if (!found.ok) {
    const { ok: _, error, plan, recorded, ...where } = found;
    const checklist = plan ? startChecklist(plan, opts.onProgress) : run.checklist;
    return ended(failedImport({ ...run, ...where, checklist, recorded }, error, 'tools'), opts);
  }
  const { location, contentDir, source } = found.target;
  const checklist = startChecklist(source, opts.onProgress);
  const failure = { ...run, location, ...(contentDir !== undefined ? { contentDir } : {}), checklist };
  let bundle: SourceBundle;
  try {
    // Read already (the same config, so the same target) when the shortcut did not match.
    if (!early) await confineSource(previous, opts);
    statusLog.push({ status: 'processing', at: now().toISOString() });
    checklist.processing(['tools']);
    bundle = early?.bundle ?? (await readSourceBundle(found.target, opts.dir));
  } catch (error) {
    return ended(failedImport(failure, asSvcError(error), 'tools'), opts);
  }
  const inputsSha256 = early?.inputsSha256;
  // Loaded here: an unchanged import that is replayed never loads the planner (parse, tools, render, diff).
  const { planImport } = await import('./plan-import.js');
  const plan = await planImport(
    previous,
    bundle,
    { ...opts, checklist, statusLog, ...(inputsSha256 ? { inputsSha256 } : {}) },
    now,
  );
  if (!plan.counts) return ended(plan, opts);
  try {
    if (!opts.dryRun)
      await writeFolder(opts.dir, plan.result.files, opts.retire ? { retire: opts.retire } : {});
  } catch (error) {
    return ended(failedImport(failure, asSvcError(error), 'tools'), opts);
  }
  settleChecklist(checklist, plan.counts);
  return { ...plan.result, checklist: checklist.snapshot() };
}

/** An unchanged import, known: the checklist goes as the full path's, and one record is appended. */
async function replay(
  target: ImportTarget,
  replayed: Replayed,
  run: FailureContext,
  opts: ImportOptions,
): Promise<ImportResult> {
  const { location, contentDir, source } = target;
  const checklist = startChecklist(source, opts.onProgress);
  checklist.processing(['tools']);
  // As the planner does on its way: the content rows are processing once it reaches them.
  if (contentDir !== undefined) checklist.processing(CONTENT_ROWS);
  try {
    // A dry run (svc diff, the Action's preview) writes nothing, its record included.
    if (!opts.dryRun) await appendRecord(opts.dir, replayed.append.path, replayed.append.text);
  } catch (error) {
    const failure = { ...run, location, ...(contentDir !== undefined ? { contentDir } : {}), checklist };
    return ended(failedImport(failure, asSvcError(error), 'tools'), opts);
  }
  settleChecklist(checklist, replayed.counts);
  const files = { ...plannedFiles(run.previousFiles ?? {}), [replayed.append.path]: replayed.append.text };
  return { ...replayed.result, files, checklist: checklist.snapshot() };
}

/** With a stat cache: the stats of the folder's files, taken before it is read (stat-index.ts). */
function statsBefore(opts: ImportOptions): StatsBefore | undefined {
  if (!statsApply(opts)) return undefined;
  const started = Date.now();
  const folder = statFolder(opts.dir);
  return folder ? { started, folder } : undefined;
}

/** After a replay that read its inputs: their stats are kept for the next one. */
function keepIndex(opts: ImportOptions, before: StatsBefore, files: FolderFiles, early: UnchangedTry): void {
  const { svcVersion } = installedVersion();
  const { inputsSha256, documentSha256 } = early;
  if (!opts.statCacheDir || !svcVersion || !inputsSha256 || !documentSha256) return;
  // What the bundle holds is proven by the stats (the content directory's included): not in the header.
  const header = fingerprintHeader(svcVersion, opts, { document: { origin: early.bundle.document.origin } });
  const read = Object.keys(files);
  keepStatIndex(opts.statCacheDir, opts.dir, before, read, header, { inputsSha256, documentSha256 });
}

/** A failed import: its history record is appended (not on a dry run), nothing else is written. */
async function ended(failed: FailedImport, opts: ImportOptions): Promise<ImportResult> {
  if (failed.append && !opts.dryRun) {
    try {
      await appendRecord(opts.dir, failed.append.path, failed.append.text);
    } catch {
      // The import already failed; not being able to record it changes nothing on disk.
    }
  }
  return failed.result;
}
