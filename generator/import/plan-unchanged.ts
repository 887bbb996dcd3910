/**
 * The unchanged re-import, known without planning. A complete import that changed nothing on
 * disk but its history (a no-op) records in `.svc/unchanged.json` a fingerprint of every input
 * its plan read: svc's version, the options that steer a re-import, the document (its bytes and
 * origin), a git source's commit, the files of its external $refs, the content files, and every
 * file of the folder as read but the history and this file. The same inputs again give the same
 * plan, but for what the history adds (the record's number, the previous import it names, the
 * times of its statuses): `replayUnchanged` builds that result from the last record, and the
 * shell appends the record without planning or swapping the folder.
 *
 * The contract: the replayed result is byte for byte the full path's (the files on disk, the
 * report, the checklist). Any other input (a user's edit, a changed config.yaml, content file,
 * document or svc version) misses the fingerprint and the import is planned in full.
 */
import { createHash } from 'node:crypto';
import { prettyCanonicalJson } from '../../core/canonical-json.js';
import { isManagedPath } from '../../folder/index.js';
import type { FolderFiles } from '../../folder/model.js';
import type { HistoryRecord } from '../../schemas/types.js';
import {
  HISTORY_DIR,
  historyPath,
  lastComplete,
  nextSeq,
  readHistory,
  UNCHANGED_FILE,
} from '../history/index.js';
import type { ImportOptions, ImportResult, SourceBundle } from './import-types.js';
import type { ChecklistCounts } from './plan-import.js';

export { UNCHANGED_FILE };

/** What `.svc/unchanged.json` holds: the inputs' fingerprint and what the plan found. */
interface UnchangedEntry {
  inputsSha256: string;
  counts: ChecklistCounts;
  warnings?: string[];
  authWarning?: string;
}

/** What the fingerprint is taken of, besides the bundle: the import's options and svc's version. */
export type FingerprintOptions = ImportOptions & {
  /** svc's version, read by the shell; without it (a bundle without its package.json) no fingerprint. */
  svcVersion?: string;
};

/**
 * The fingerprint of a re-import's inputs, or undefined when the import cannot be replayed
 * (a first import, a dry run, kept user files, a source part that could not be read).
 */
export function unchangedInputs(
  files: FolderFiles | undefined,
  bundle: SourceBundle,
  opts: FingerprintOptions,
): string | undefined {
  if (!files || opts.config || opts.dryRun || opts.userFiles) return undefined;
  if (bundle.externalRefs && !(bundle.externalRefs instanceof Map)) return undefined;
  if (bundle.content && !Array.isArray(bundle.content)) return undefined;
  const version = opts.svcVersion;
  if (version === undefined) return undefined;
  const hash = createHash('sha256');
  const add = (label: string, text: string) => {
    // The length in UTF-16 units delimits the text as well as its byte length (and costs nothing).
    hash.update(`${label}\0${text.length}\0`);
    hash.update(text);
  };
  add(
    'header',
    JSON.stringify({
      svc: version,
      location: opts.location ?? null,
      contentDir: opts.contentDir ?? null,
      allowExternalRefs: opts.allowExternalRefs === true,
      compact: opts.compact ?? null,
      appBuilderOrigin: opts.appBuilderOrigin ?? null,
      ref: opts.ref ?? null,
      origin: bundle.document.origin,
      commit: bundle.commit ?? null,
      content: bundle.content ? bundle.content.length : null,
    }),
  );
  add('document', bundle.document.text);
  if (bundle.externalRefs instanceof Map)
    for (const url of [...bundle.externalRefs.keys()].sort())
      add(`ref ${url}`, bundle.externalRefs.get(url)!);
  for (const file of bundle.content ?? []) add(`content ${file.path}`, file.text);
  for (const path of Object.keys(files).filter(replayable).sort()) {
    // Tools/openapi.json is most often the document itself: compared, not hashed twice.
    const text = files[path]!;
    if (text === bundle.document.text) add(`document at ${path}`, '');
    else add(`file ${path}`, text);
  }
  return hash.digest('hex');
}

/**
 * Folder files the fingerprint covers: the managed ones (the only ones a re-import's plan reads;
 * a document or content directory inside the folder is read as the source), but the history and
 * the fingerprint itself. Never `.env`: no hash of a secret is written.
 */
function replayable(path: string): boolean {
  return isManagedPath(path) && path !== UNCHANGED_FILE && !path.startsWith(`${HISTORY_DIR}/`);
}

/**
 * The planner's last step for a re-import: sets (or removes) `.svc/unchanged.json` in the
 * planned files. It is kept only when the plan is a no-op that a replay can repeat: no file but
 * the history changes, and the record shares the previous import's endpoints (so the next
 * import diffs the same endpoints against the same endpoints).
 */
export function markUnchanged(
  previous: FolderFiles,
  files: FolderFiles,
  record: HistoryRecord,
  inputs: () => string | undefined,
  entry: Omit<UnchangedEntry, 'inputsSha256'>,
): void {
  delete files[UNCHANGED_FILE];
  const repeatable =
    record.status === 'complete' &&
    !record.changed &&
    record.endpoints === undefined &&
    record.endpointsOf !== undefined &&
    record.report?.previous !== undefined &&
    record.report.endpoints.length === 0 &&
    sameReplayable(previous, files);
  const inputsSha256 = repeatable ? inputs() : undefined;
  if (inputsSha256) files[UNCHANGED_FILE] = prettyCanonicalJson({ ...entry, inputsSha256 });
}

/** The files the full path's plan lists: the managed ones. */
function planned(files: FolderFiles): FolderFiles {
  const out: FolderFiles = {};
  for (const [path, text] of Object.entries(files)) if (isManagedPath(path)) out[path] = text;
  return out;
}

/** The plan writes the managed files as they were, and names no other file. */
function sameReplayable(before: FolderFiles, after: FolderFiles): boolean {
  if (Object.keys(after).some((p) => !isManagedPath(p))) return false;
  const kb = Object.keys(before).filter(replayable);
  const ka = Object.keys(after).filter(replayable);
  return kb.length === ka.length && kb.every((p) => before[p] === after[p]);
}

export interface Replayed {
  result: Omit<ImportResult, 'checklist'>;
  counts: ChecklistCounts;
  /** The one file the import writes: its history record. */
  append: { path: string; text: string };
}

/**
 * The result of an import whose inputs match the fingerprint: the last complete record again,
 * numbered next, naming that record as the previous import, with this run's statuses (pushed
 * on `statusLog`, which holds `pending`).
 */
export function replayUnchanged(
  files: FolderFiles,
  inputsSha256: string | undefined,
  statusLog: HistoryRecord['statusLog'],
  now: () => Date,
): Replayed | undefined {
  const stored = files[UNCHANGED_FILE];
  if (inputsSha256 === undefined || stored === undefined) return undefined;
  let entry: UnchangedEntry;
  try {
    entry = JSON.parse(stored) as UnchangedEntry;
  } catch {
    return undefined;
  }
  if (entry.inputsSha256 !== inputsSha256) return undefined;
  const records = readHistory(files);
  const last = lastComplete(records);
  const lastText = last ? files[historyPath(last.seq)] : undefined;
  if (!last || lastText === undefined) return undefined;
  // As written (readHistory fills in `endpoints` from the record `endpointsOf` names).
  const written = JSON.parse(lastText) as HistoryRecord;
  if (!written.report || written.endpointsOf === undefined || written.endpoints !== undefined)
    return undefined;
  // The clock as the full path reads it: processing, the diff's sunset rules, complete.
  statusLog.push({ status: 'processing', at: now().toISOString() });
  now();
  statusLog.push({ status: 'complete', at: now().toISOString() });
  const documentSha256 = written.revision?.documentSha256;
  const record: HistoryRecord = {
    ...written,
    seq: nextSeq(records),
    statusLog,
    report: {
      ...written.report,
      previous: { seq: written.seq, ...(documentSha256 ? { documentSha256 } : {}) },
    },
  };
  const append = { path: historyPath(record.seq), text: prettyCanonicalJson(record) };
  return {
    result: {
      status: 'complete',
      changed: false,
      report: record.report!,
      files: { ...planned(files), [append.path]: append.text },
      record,
      ...(entry.authWarning ? { authWarning: entry.authWarning } : {}),
      ...(entry.warnings && entry.warnings.length > 0 ? { warnings: entry.warnings } : {}),
    },
    counts: entry.counts,
    append,
  };
}
