/**
 * The unchanged re-import, known without planning. A complete import records in
 * `.svc/unchanged.json` a fingerprint of every input the next import's plan reads: svc's version
 * and code (its build id), the options that steer a re-import, the document (its bytes and origin),
 * a git source's commit, the files of its external $refs, the content files, and every file of the
 * folder as read but the history and this file. Two kinds of import record it:
 * - a no-op (nothing on disk changed but its history): the fingerprint of its own inputs;
 * - an import that wrote the folder (`svc init`, an upgrade), when what it merged leaves nothing
 *   for the next import to report (only tools and content added, updated or removed): the
 *   fingerprint the next plain `svc import` of the folder it wrote will compute.
 * The same inputs again give the same plan, but for what the history adds (the record's number,
 * the previous import it names, the times of its statuses): `replayUnchanged` builds that result
 * from the last record (after a write, the no-op report that record implies), and the shell
 * appends the record without planning or swapping the folder.
 *
 * The contract: the replayed result is byte for byte the full path's (the files on disk, the
 * report, the checklist). Any other input (a user's edit, a changed config.yaml, content file,
 * document, svc version or build) misses the fingerprint and the import is planned in full.
 */
import { createHash } from 'node:crypto';
import { prettyCanonicalJson } from '../../core/canonical-json.js';
import { isManagedPath } from '../../folder/folder-paths.js';
import type { FolderFiles } from '../../folder/model.js';
import type { ToolItem } from '../../folder/model.js';
import type { HistoryRecord, ImportReport, SvcTool } from '../../schemas/types.js';
import type { MergeNote } from '../merge/merge-notes.js';
import { buildReport } from '../report/build-report.js';
import { inReportOrder } from '../report/report-order.js';
import {
  HISTORY_DIR,
  historyPath,
  lastComplete,
  nextSeq,
  readHistory,
  sha256Hex,
  UNCHANGED_FILE,
} from '../history/index.js';
import type { ImportOptions, ImportResult, SourceBundle } from './import-types.js';
import type { ChecklistCounts } from './checklist-settle.js';

export { UNCHANGED_FILE };

/** What `.svc/unchanged.json` holds: the inputs' fingerprint and what the plan found. */
interface UnchangedEntry {
  inputsSha256: string;
  /**
   * The document's SHA-256, one of the inputs: an import of another document (an upgrade) knows
   * it misses without hashing the whole folder.
   */
  documentSha256: string;
  counts: ChecklistCounts;
  warnings?: string[];
  authWarning?: string;
}

/** What the fingerprint is taken of, besides the bundle: the import's options and svc's version. */
export type FingerprintOptions = ImportOptions & {
  /**
   * svc's version and build id, read by the shell; without it (a bundle without its package.json)
   * no fingerprint.
   */
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
  /** The document's SHA-256 (hex), when the caller has it already (the planner does). */
  documentSha256?: string,
): string | undefined {
  if (!files || opts.config || opts.userFiles) return undefined;
  if (bundle.externalRefs && !(bundle.externalRefs instanceof Map)) return undefined;
  if (bundle.content && !Array.isArray(bundle.content)) return undefined;
  const version = opts.svcVersion;
  if (version === undefined) return undefined;
  const document = bundle.document.text;
  const folder = Object.keys(files)
    .filter(replayable)
    .sort()
    .map((path): [string, FolderPart] => {
      // Tools/openapi.json is most often the document itself, or the document and a final
      // newline (a 2-space JSON source rendered): compared, not hashed twice (GitHub's is 13 MB).
      const text = files[path]!;
      if (text === document) return [path, { same: 'document' }];
      return [
        path,
        isDocumentAndNewline(text, document) ? { same: 'document and a newline' } : { data: text },
      ];
    });
  const refs = bundle.externalRefs instanceof Map ? bundle.externalRefs : undefined;
  return digestInputs(
    fingerprintHeader(version, opts, bundle),
    // The document by its SHA-256: the planner has it already (the record's documentSha256).
    documentSha256 ?? sha256Hex(document),
    [
      ...[...(refs?.keys() ?? [])].sort().map((url): [string, string] => [`ref ${url}`, refs!.get(url)!]),
      ...(bundle.content ?? []).map((f): [string, string] => [`content ${f.path}`, f.text]),
    ],
    folder,
  );
}

/** A folder file as the fingerprint takes it: the document (or it and a newline), or its text or bytes. */
type FolderPart = { same: 'document' | 'document and a newline' } | { data: string | Buffer };

/**
 * The fingerprint's hash: every part delimited by its label and its length in UTF-8 bytes, so that
 * a text (as read) and the bytes it was read from (valid UTF-8) hash alike.
 */
function digestInputs(
  header: string,
  documentSha256: string,
  parts: readonly [string, string][],
  folder: readonly [string, FolderPart][],
): string {
  const hash = createHash('sha256');
  const add = (label: string, data: string | Buffer) => {
    hash.update(`${label}\0${typeof data === 'string' ? Buffer.byteLength(data) : data.length}\0`);
    hash.update(data);
  };
  add('header', header);
  add('document sha256', documentSha256);
  for (const [label, text] of parts) add(label, text);
  for (const [path, part] of folder) {
    if ('data' in part) add(`file ${path}`, part.data);
    else add(`${part.same} at ${path}`, '');
  }
  return hash.digest('hex');
}

/**
 * The same fingerprint from the bytes on disk, not decoded (replay-quick.ts): a local document
 * (valid UTF-8 without a BOM, so that its SHA-256 is its text's), no external $refs, no content
 * directory. Equal to unchangedInputs' wherever every file is valid UTF-8 (the text read is then
 * those bytes again); a file that is not hashes otherwise, which is a miss, never a false match
 * (equal hashes mean bytes that decode to the very texts the fingerprint was taken of).
 */
export function unchangedInputsOfBytes(
  header: string,
  document: Buffer,
  documentSha256: string,
  files: ReadonlyMap<string, Buffer>,
): string {
  const folder = [...files.keys()]
    .filter(replayable)
    .sort()
    .map((path): [string, FolderPart] => {
      const bytes = files.get(path)!;
      if (bytes.equals(document)) return [path, { same: 'document' }];
      const withNewline =
        bytes.length === document.length + 1 &&
        bytes[document.length] === 0x0a &&
        bytes.subarray(0, document.length).equals(document);
      return [path, withNewline ? { same: 'document and a newline' } : { data: bytes }];
    });
  return digestInputs(header, documentSha256, [], folder);
}

/**
 * The fingerprint's first part: svc's version and build, the options that steer a re-import, and
 * what the bundle holds besides its files (the document's origin, a commit, the count of content
 * files). The stat index (stat-index.ts) compares it as it is.
 */
export function fingerprintHeader(
  version: string,
  opts: ImportOptions,
  bundle: Pick<SourceBundle, 'commit' | 'content'> & { document: { origin: string } },
): string {
  return JSON.stringify({
    svc: version,
    location: opts.location ?? null,
    contentDir: opts.contentDir ?? null,
    allowExternalRefs: opts.allowExternalRefs === true,
    compact: opts.compact ?? null,
    appBuilderOrigin: opts.appBuilderOrigin ?? null,
    ref: opts.ref ?? null,
    origin: bundle.document.origin,
    commit: bundle.commit ?? null,
    content: Array.isArray(bundle.content) ? bundle.content.length : null,
  });
}

function isDocumentAndNewline(text: string, document: string): boolean {
  return text.length === document.length + 1 && text.endsWith('\n') && text.startsWith(document);
}

/**
 * Whether the fingerprint recorded in the folder may match an import of a document with this
 * SHA-256: false when none is recorded or it names another document (no use hashing the folder).
 */
export function mayReplay(files: FolderFiles, documentSha256: string): boolean {
  const entry = readEntry(files);
  return entry !== undefined && entry.documentSha256 === documentSha256;
}

export function readEntry(files: FolderFiles): UnchangedEntry | undefined {
  const stored = files[UNCHANGED_FILE];
  if (stored === undefined) return undefined;
  try {
    return JSON.parse(stored) as UnchangedEntry;
  } catch {
    return undefined;
  }
}

/**
 * Folder files the fingerprint covers: the managed ones (the only ones a re-import's plan reads;
 * a document or content directory inside the folder is read as the source), but the history and
 * the fingerprint itself. Never `.env`: no hash of a secret is written.
 */
export function replayable(path: string): boolean {
  return isManagedPath(path) && path !== UNCHANGED_FILE && !path.startsWith(`${HISTORY_DIR}/`);
}

/** The fingerprints the planner's last step may record (each computed only when it is recorded). */
export interface Fingerprints {
  /** A no-op re-import: the fingerprint of its own inputs. */
  noop: () => string | undefined;
  /** An import that wrote the folder: the fingerprint of the next plain import's inputs. */
  written: () => string | undefined;
}

/**
 * The planner's last step: sets (or removes) `.svc/unchanged.json` in the planned files. A no-op
 * re-import keeps it when a replay can repeat the plan: no file but the history changes, and the
 * record shares the previous import's endpoints (so the next import diffs the same endpoints
 * against the same endpoints). An import that changed the folder keeps it when its merge leaves
 * nothing the next import reports again (`settledMerge`).
 */
export function markUnchanged(
  previous: FolderFiles | undefined,
  files: FolderFiles,
  record: HistoryRecord,
  notes: readonly MergeNote[],
  fingerprints: Fingerprints,
  entry: Omit<UnchangedEntry, 'inputsSha256' | 'documentSha256'>,
): void {
  delete files[UNCHANGED_FILE];
  if (record.status !== 'complete') return;
  let inputsSha256: string | undefined;
  if (record.changed) {
    if (settledMerge(notes)) inputsSha256 = fingerprints.written();
  } else if (
    previous &&
    record.endpoints === undefined &&
    record.endpointsOf !== undefined &&
    record.report?.previous !== undefined &&
    record.report.endpoints.length === 0 &&
    sameReplayable(previous, files)
  ) {
    inputsSha256 = fingerprints.noop();
  }
  const documentSha256 = record.revision?.documentSha256;
  if (inputsSha256 && documentSha256)
    files[UNCHANGED_FILE] = prettyCanonicalJson({ ...entry, documentSha256, inputsSha256 });
}

/**
 * The merge notes that do not come back when the same source is imported over the folder this
 * import writes: tools added or removed, content added, updated or removed. Any other (a kept
 * customization, a stale tool, a renamed one, skipped or kept content, a reset) makes the next
 * import plan in full, which records its own fingerprint once it is a no-op.
 */
function settledMerge(notes: readonly MergeNote[]): boolean {
  return notes.every(
    (n) =>
      n.kind === 'tool-added' ||
      n.kind === 'tool-removed' ||
      (n.kind === 'content' &&
        (n.change.action === 'added' || n.change.action === 'updated' || n.change.action === 'removed')),
  );
}

/**
 * The fingerprint the next plain `svc import` of the folder this import writes computes: the same
 * bundle, the written files, and the options of a plain import (svc's version; the platform
 * origin, which comes from the environment). None when this import's options shape the result
 * beyond what the folder records (--compact, --ref, external $refs) or it keeps user files.
 */
export function writtenInputs(
  written: FolderFiles,
  bundle: SourceBundle,
  opts: FingerprintOptions,
  documentSha256?: string,
): string | undefined {
  if (opts.dryRun || opts.userFiles || opts.compact !== undefined || opts.ref !== undefined) return undefined;
  if (opts.allowExternalRefs || bundle.externalRefs !== undefined) return undefined;
  const next: FingerprintOptions = {
    dir: opts.dir,
    ...(opts.svcVersion !== undefined ? { svcVersion: opts.svcVersion } : {}),
    ...(opts.appBuilderOrigin !== undefined ? { appBuilderOrigin: opts.appBuilderOrigin } : {}),
  };
  return unchangedInputs(written, bundle, next, documentSha256);
}

/** The files the full path's plan lists: the managed ones (with the record a replay appends). */
export function plannedFiles(files: FolderFiles): FolderFiles {
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
  /** The result but its checklist and its files (the shell adds the folder's, when it read them). */
  result: Omit<ImportResult, 'checklist' | 'files'>;
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
  const entry = inputsSha256 === undefined ? undefined : readEntry(files);
  if (entry === undefined || entry.inputsSha256 !== inputsSha256) return undefined;
  const records = readHistory(files);
  const last = lastComplete(records);
  const lastText = last ? files[historyPath(last.seq)] : undefined;
  if (!last || lastText === undefined) return undefined;
  // As written (readHistory fills in `endpoints` from the record `endpointsOf` names).
  const lastRecord = JSON.parse(lastText) as HistoryRecord;
  const written = lastRecord.changed ? settledRecord(lastRecord) : lastRecord;
  if (!written?.report || written.endpointsOf === undefined || written.endpoints !== undefined)
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
      // Read back from the canonical record: in the order a planned import's report has.
      report: inReportOrder(record.report!),
      record,
      ...(entry.authWarning ? { authWarning: entry.authWarning } : {}),
      ...(entry.warnings && entry.warnings.length > 0 ? { warnings: entry.warnings } : {}),
    },
    counts: entry.counts,
    append,
  };
}

/**
 * The no-op record an import that wrote the folder implies for the next import of the same
 * inputs: the same endpoints (referred to), no change, and the report the diff of the same
 * endpoints with nothing merged builds: the tool counts and tools/list cost of the folder written.
 */
function settledRecord(written: HistoryRecord): HistoryRecord | undefined {
  const report = written.report;
  if (!report) return undefined;
  const { total, enabled } = report.counts.tools;
  // Only the counts of the folder's tools reach a report without changes or notes.
  const tools = Array.from(
    { length: total },
    (_, i): ToolItem => ({ key: '', file: '', tool: { enabled: i < enabled, origin: 'manual' } as SvcTool }),
  );
  const after = report.toolsList?.after;
  const settled: ImportReport = buildReport({
    source: report.source,
    previous: { seq: written.seq },
    endpointsBefore: report.counts.endpoints.after,
    endpointsAfter: report.counts.endpoints.after,
    endpoints: [],
    notes: [],
    tools,
    changed: false,
    ...(after ? { toolsList: { before: after, after } } : {}),
  });
  return {
    schemaVersion: 1,
    seq: written.seq,
    status: 'complete',
    statusLog: written.statusLog,
    source: written.source,
    ...(written.revision ? { revision: written.revision } : {}),
    changed: false,
    summary: settled.summary,
    endpointsOf: written.endpointsOf ?? written.seq,
    report: settled,
  };
}
