/**
 * The pure planner of an import: from the folder as read and the source as read to the folder
 * as it should be, its history record, its report and its checklist. It reads no file and no
 * network (the shell, import-folder.ts, reads before and writes after): the previous folder → the
 * target → tools → content → merge → files → report → record.
 *
 * Fail closed: a failed plan carries only its history record (and a failed first import nothing).
 * Deterministic: the clock is passed in; everything else comes from the inputs.
 */
import type { FolderModel } from '../../folder/model.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { GITIGNORE_FILE, renderGitignore } from '../render/index.js';
import { keepUserFiles } from '../init/keep-user-files.js';
import { Checklist, type ChecklistRow } from './checklist.js';
import { type ChecklistCounts, settleChecklist, startChecklist } from './checklist-settle.js';
import { asSvcError, type FailedImport, failedImport, failedStep } from './failed-import.js';
import { importTarget, type ImportTarget } from './import-target.js';
import type { ImportResult, PreviousFolder, SourceBundle } from './import-types.js';
import { planContent } from './plan-content.js';
import { planFiles, planMerge } from './plan-files.js';
import { planRecord, planReport } from './plan-record.js';
import { planTools } from './plan-tools.js';
export { type ChecklistCounts, settleChecklist, startChecklist } from './checklist-settle.js';
import { type FingerprintOptions, markUnchanged, unchangedInputs, writtenInputs } from './plan-unchanged.js';

export interface PlanOptions extends FingerprintOptions {
  /** The checklist the shell shows progress on (else a new one). */
  checklist?: Checklist;
  /** The statuses the run went through so far (else pending and processing, now). */
  statusLog?: HistoryRecord['statusLog'];
  /** The fingerprint of the inputs, when the shell computed it (else computed here). */
  inputsSha256?: string;
}

export interface ImportPlan {
  result: ImportResult;
  /** A failed plan: the history record's file, to append (absent when nothing is recorded). */
  append?: FailedImport['append'];
  /** A complete plan: how the checklist settles once the folder is written. */
  counts?: ChecklistCounts;
}

export async function planImport(
  previous: PreviousFolder | undefined,
  bundle: SourceBundle,
  options: PlanOptions,
  now: () => Date,
): Promise<ImportPlan> {
  const found = importTarget(previous, options);
  const checklist = options.checklist ?? startChecklist(found.ok ? found.target.source : found.plan);
  if (!options.checklist && found.ok) checklist.processing(['tools']);
  const statusLog = options.statusLog ?? [
    { status: 'pending', at: now().toISOString() },
    { status: 'processing', at: now().toISOString() },
  ];
  const where = found.ok ? found.target : found;
  const ctx = {
    checklist,
    statusLog,
    now,
    location: where.location,
    ...(where.contentDir !== undefined ? { contentDir: where.contentDir } : {}),
    ...(previous ? { previousFiles: previous.files } : {}),
  };
  if (!found.ok) return failedImport({ ...ctx, recorded: found.recorded }, found.error, 'tools');
  try {
    const counts = await plan(previous, bundle, found.target, { ...options, checklist, statusLog }, now);
    return {
      result: { ...counts.result, checklist: settledRows(checklist, counts.counts) },
      counts: counts.counts,
    };
  } catch (error) {
    return failedImport(ctx, asSvcError(error), failedStep(error));
  }
}

async function plan(
  previous: PreviousFolder | undefined,
  bundle: SourceBundle,
  target: ImportTarget,
  options: PlanOptions & { checklist: Checklist; statusLog: HistoryRecord['statusLog'] },
  now: () => Date,
): Promise<{ result: ImportResult; counts: ChecklistCounts }> {
  const dryRun = options.dryRun === true;
  const tools = await planTools(target, bundle, previous);
  const content = planContent(bundle, options.checklist);
  const merge = planMerge(previous, tools, content);
  const model: FolderModel = { config: tools.config, tools: merge.merged.tools, ...merge.merged.content };
  const files = planFiles(previous, model, tools.text, merge.merged, dryRun);
  const reported = await planReport(previous, tools, merge, model, files, {
    location: target.location,
    now: now(),
    dryRun,
  });
  options.statusLog.push({ status: 'complete', at: now().toISOString() });
  const book = planRecord(previous, tools, merge, reported, files, {
    location: target.location,
    ...(target.contentDir ? { contentDir: target.contentDir } : {}),
    ...(bundle.commit ? { commit: bundle.commit } : {}),
    statusLog: options.statusLog,
    dryRun,
  });
  Object.assign(files, book.files);
  // A first import makes the folder: it gets the `.gitignore` that keeps `.env` out of git.
  if (options.config && !(GITIGNORE_FILE in files)) files[GITIGNORE_FILE] = renderGitignore();
  const userKept = options.userFiles ? keepUserFiles(files, options.userFiles) : undefined;
  if (userKept) Object.assign(files, userKept.files);
  const result: ImportResult = {
    status: 'complete',
    changed: reported.changed,
    report: reported.report,
    checklist: [],
    files,
    record: book.record,
    ...(userKept ? { keptUserFiles: userKept.kept } : {}),
    ...(tools.authNotice ? { authWarning: tools.authNotice } : {}),
    ...(tools.warnings.length > 0 ? { warnings: tools.warnings } : {}),
  };
  const items = content ?? { skills: [], prompts: [], resources: [], docs: [], widgets: [] };
  const counts: ChecklistCounts = {
    tools: tools.tools.length,
    warnings: tools.warnings.length,
    content: {
      resources: items.resources.length,
      skills: items.skills.length,
      prompts: items.prompts.length,
      widgets: items.widgets.length,
      docs: items.docs.length,
    },
  };
  if (!dryRun) {
    // Hashed only when recorded: a no-op re-import, or a write whose merge leaves nothing to report again.
    const noop = () =>
      previous
        ? (options.inputsSha256 ?? unchangedInputs(previous.files, bundle, options, reported.documentSha256))
        : undefined;
    markUnchanged(
      previous?.files,
      files,
      book.record,
      merge.merged.notes,
      { noop, written: () => writtenInputs(files, bundle, options, reported.documentSha256) },
      {
        counts,
        ...(result.warnings ? { warnings: result.warnings } : {}),
        ...(result.authWarning ? { authWarning: result.authWarning } : {}),
      },
    );
  }
  return { result, counts };
}

/** The rows as they settle, without touching the live checklist (it settles once written). */
function settledRows(checklist: Checklist, counts: ChecklistCounts): ChecklistRow[] {
  const copy = new Checklist(checklist.rows.length > 2);
  copy.rows.splice(0, copy.rows.length, ...checklist.snapshot());
  settleChecklist(copy, counts);
  return copy.snapshot();
}
