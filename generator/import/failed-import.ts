/**
 * The one failed ImportResult: the checklist marks the failed step, the report says why, and when
 * there is a folder to record it in, the result carries the history record and the one file that
 * records it (the shell appends that file unless the run is dry; nothing else is written).
 */
import { SvcError } from '../../core/svc-error.js';
import { isManagedPath } from '../../folder/folder-paths.js';
import type { FolderFiles } from '../../folder/model.js';
import type { HistoryRecord, ImportReport } from '../../schemas/types.js';
import { historyPath, isBookkeeping, nextBookkeeping, nextSeq, readHistory } from '../history/index.js';
import type { Checklist, ChecklistKind } from './checklist.js';
import type { ImportResult } from './import-types.js';
import { recordableLocation } from './recordable-location.js';

/** What a failure needs to know of the run it ends. */
export interface FailureContext {
  checklist: Checklist;
  statusLog: HistoryRecord['statusLog'];
  now: () => Date;
  /** Where the import read (or meant to read) its document. */
  location: string;
  contentDir?: string;
  /** The folder as read; absent for a first import (then nothing is recorded). */
  previousFiles?: FolderFiles;
  /** False for a refusal before anything was attempted: no record, the folder as it is. */
  recorded?: boolean;
}

export interface FailedImport {
  result: ImportResult;
  /** The history record's file, to append to the folder (absent when nothing is recorded). */
  append?: { path: string; text: string };
}

/** A failure stopping the import at a checklist step. */
export class StepFailure extends Error {
  constructor(
    readonly step: ChecklistKind,
    readonly error: SvcError,
  ) {
    super(error.message);
  }
}

export function asSvcError(error: unknown): SvcError {
  if (error instanceof SvcError) return error;
  if (error instanceof StepFailure) return error.error;
  const message = error instanceof Error ? error.message : String(error);
  return new SvcError('INTERNAL', `unexpected error during import: ${message}`, { cause: error });
}

/** The step a thrown error stopped at (tools unless it says otherwise). */
export function failedStep(error: unknown): ChecklistKind {
  return error instanceof StepFailure ? error.step : 'tools';
}

export function firstLine(error: SvcError): string {
  const where = error.where();
  return `${error.code}: ${where ? `${where}: ` : ''}${error.message}`;
}

export function failedImport(ctx: FailureContext, error: SvcError, step: ChecklistKind): FailedImport {
  ctx.checklist.fail(step, firstLine(error));
  const recorded = ctx.recorded !== false;
  const report = failureReport(recorded ? recordableLocation(ctx.location) : ctx.location, error);
  const base = {
    status: 'failed' as const,
    changed: false,
    report,
    checklist: ctx.checklist.snapshot(),
    error,
  };
  if (!ctx.previousFiles) return { result: { ...base, files: {} } };
  if (!recorded) return { result: { ...base, files: ctx.previousFiles } };
  ctx.statusLog.push({ status: 'failed', at: ctx.now().toISOString() });
  const record: HistoryRecord = {
    schemaVersion: 1,
    seq: failedSeq(ctx.previousFiles),
    status: 'failed',
    statusLog: ctx.statusLog,
    source: {
      location: recordableLocation(ctx.location),
      ...(ctx.contentDir ? { contentDir: ctx.contentDir } : {}),
    },
    changed: false,
    summary: report.summary,
    error: { code: error.code, message: error.message, step },
  };
  const book = nextBookkeeping({ previous: ctx.previousFiles, record });
  const files: FolderFiles = {};
  for (const [p, t] of Object.entries(ctx.previousFiles))
    if (isManagedPath(p) && !isBookkeeping(p)) files[p] = t;
  Object.assign(files, book.files);
  const path = historyPath(book.record.seq);
  return { result: { ...base, files, record: book.record }, append: { path, text: book.files[path]! } };
}

/** After the records present, or the files present when the history cannot be read. */
function failedSeq(previousFiles: FolderFiles): number {
  let records: HistoryRecord[] = [];
  try {
    records = readHistory(previousFiles);
  } catch {
    // An unreadable history must not hide the import's own error; number after the files present.
    records = [];
  }
  const present = Object.keys(previousFiles).filter((p) => p.startsWith('.svc/history/')).length;
  return Math.max(nextSeq(records), present + 1);
}

function failureReport(location: string, error: SvcError): ImportReport {
  return {
    schemaVersion: 1,
    changed: false,
    summary: `Import failed (${error.code}): ${error.message}`,
    source: { location },
    counts: {
      endpoints: { before: 0, after: 0, added: 0, removed: 0, changed: 0, unchanged: 0, breaking: 0 },
      tools: { total: 0, enabled: 0, added: 0, removed: 0, stale: 0, customizationsReset: 0 },
      content: { added: 0, updated: 0, skipped: 0, removed: 0 },
      warnings: 0,
    },
    endpoints: [],
    tools: { added: [], removed: [], stale: [], customizationsReset: [] },
    content: [],
    warnings: [],
  };
}
