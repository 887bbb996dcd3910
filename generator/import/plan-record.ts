/**
 * Planning, steps 5 and 6: the diff against the previous import and its report, then the history
 * record and the bookkeeping files of .svc/.
 */
import { isManagedPath } from '../../folder/folder-paths.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import { toolsListCost } from '../../folder/tools-list-cost.js';
import type { Endpoint, HistoryRecord, ImportReport } from '../../schemas/types.js';
import { diffEndpoints, diffOptionsOf, webhookChanges } from '../diff/index.js';
import {
  type EndpointStores,
  FOLDER_DOCUMENT,
  type HashedEndpoints,
  hashEndpoints,
  isBookkeeping,
  loadEndpoints,
  nextBookkeeping,
  nextSeq,
  renderGenerated,
  readStores,
  sha256Hex,
} from '../history/index.js';
import { contentHashes } from '../merge/index.js';
import { OPENAPI_FILE } from '../render/index.js';
import { buildReport } from '../report/index.js';
import type { PreviousFolder } from './import-types.js';
import type { PlannedMerge } from './plan-files.js';
import type { PlannedTools } from './plan-tools.js';
import { recordableLocation } from './recordable-location.js';

export interface PlannedReport {
  report: ImportReport;
  changed: boolean;
  documentSha256: string;
  /** The previous folder's endpoint stores, read once for the diff and the record. */
  stores?: EndpointStores;
  /** The endpoints hashed as stored, when they will be (not in a dry run). */
  hashed?: HashedEndpoints;
}

export async function planReport(
  previous: PreviousFolder | undefined,
  planned: PlannedTools,
  { merged, last }: PlannedMerge,
  model: FolderModel,
  files: FolderFiles,
  { location, now, dryRun }: { location: string; now: Date; dryRun?: boolean },
): Promise<PlannedReport> {
  const was = last?.endpoints && previous ? last.endpoints : undefined;
  const stores = was && previous ? readStores(previous.files) : undefined;
  // Hashed here when the record stores them anyway: an endpoint whose hash the previous import
  // stored is that endpoint unchanged, so it is neither read from the store nor compared.
  const hashed = dryRun ? undefined : hashEndpoints(planned.endpoints);
  const reuse = hashed ? byHash(planned.endpoints, hashed) : undefined;
  const before = was && stores && previous ? loadEndpoints(previous.files, was, stores, reuse) : [];
  const diffOptions = diffOptionsOf(model.config.diff, now);
  const same = reuse ? (b: Endpoint, a: Endpoint) => b === a : undefined;
  const changes = diffEndpoints(before, planned.endpoints, diffOptions, same);
  // Webhooks (OpenAPI 3.1) against the document the folder holds; none are stored with the endpoints.
  if (last?.endpoints && previous)
    changes.push(...(await webhookChanges(previous.files[FOLDER_DOCUMENT], planned.webhooks, diffOptions)));
  const changed = !previous || !sameFiles(previous.files, files);
  const documentSha256 = planned.textSha256 ?? sha256Hex(planned.text);
  const previousRun = last
    ? {
        seq: last.seq,
        ...(last.revision?.documentSha256 ? { documentSha256: last.revision.documentSha256 } : {}),
      }
    : undefined;
  const report = buildReport({
    source: { location: recordableLocation(location), documentSha256 },
    ...(previousRun ? { previous: previousRun } : {}),
    endpointsBefore: before.length,
    endpointsAfter: planned.endpoints.length,
    endpoints: changes,
    notes: merged.notes,
    tools: merged.tools,
    changed,
    toolsList: {
      ...(previous ? { before: toolsListCost(previous.folder) } : {}),
      after: toolsListCost(model),
    },
  });
  return {
    report,
    changed,
    documentSha256,
    ...(stores ? { stores } : {}),
    ...(hashed ? { hashed } : {}),
  };
}

/** The endpoints by their hash. */
function byHash(endpoints: readonly Endpoint[], hashed: HashedEndpoints): Map<string, Endpoint> {
  const out = new Map<string, Endpoint>();
  for (const [i, e] of endpoints.entries()) out.set(hashed.hashes[i]!, e);
  return out;
}

export interface RecordInput {
  location: string;
  contentDir?: string;
  commit?: string;
  statusLog: HistoryRecord['statusLog'];
  dryRun: boolean;
}

/** The bookkeeping files (record, endpoints, document, hashes, merge bases) and the record. */
export function planRecord(
  previous: PreviousFolder | undefined,
  planned: PlannedTools,
  { merged, records, last, lastWritten }: PlannedMerge,
  { report, changed, documentSha256, stores, hashed }: PlannedReport,
  files: FolderFiles,
  input: RecordInput,
): { files: FolderFiles; record: HistoryRecord } {
  const kept = new Set(merged.keptFiles);
  const written: Record<string, string> = {};
  for (const [path, hash] of Object.entries(contentHashes(merged.content))) {
    if (!kept.has(path)) written[path] = hash;
    else if (lastWritten[path] !== undefined) written[path] = lastWritten[path]!;
  }
  const { location, contentDir, commit } = input;
  return nextBookkeeping({
    previous: previous?.files ?? {},
    // As planMerge read them from the same files.
    ...(previous ? { records } : {}),
    record: {
      schemaVersion: 1,
      seq: nextSeq(records),
      status: 'complete',
      statusLog: input.statusLog,
      source: { location: recordableLocation(location), ...(contentDir ? { contentDir } : {}) },
      revision: { documentSha256, ...(commit ? { gitCommit: commit } : {}) },
      changed,
      summary: report.summary,
      report: last ? report : firstImportRecordReport(report),
    },
    // A dry run shows the record it would append but spends no time storing endpoints, nor
    // rendering the merge bases (.svc/generated.json, 2.5 MB for GitHub) that nobody reads from it.
    ...(input.dryRun
      ? {}
      : {
          endpoints: planned.endpoints,
          ...(stores ? { stores } : {}),
          ...(hashed ? { hashed } : {}),
          generated: renderGenerated(merged.generatedByKey),
        }),
    // Kept as the same bytes as Tools/openapi.json, so git stores the document once for both.
    document: { text: files[OPENAPI_FILE] ?? planned.text, sha256: documentSha256 },
    written,
  });
}

/**
 * A first import's diff says "everything was added": its record keeps the counts and leaves
 * the lists out (the endpoints themselves are in .svc/endpoints/), so that importing a
 * 1,000-endpoint API does not put a 500 KB record in the pull request.
 */
function firstImportRecordReport(report: ImportReport): ImportReport {
  return {
    ...report,
    endpoints: report.endpoints.filter((e) => e.kind !== 'added'),
    tools: { ...report.tools, added: [] },
  };
}

function sameFiles(a: FolderFiles, b: FolderFiles): boolean {
  const counted = (p: string) => isManagedPath(p) && !isBookkeeping(p);
  const ka = Object.keys(a).filter(counted);
  const kb = Object.keys(b).filter(counted);
  if (ka.length !== kb.length) return false;
  // The tool files last: a dry run renders them when read (plan-files.ts), so none is when a
  // file rendered already (the document, most often) differs.
  const same = (p: string) => a[p] === b[p];
  return ka.every((p) => isToolFile(p) || same(p)) && ka.every((p) => !isToolFile(p) || same(p));
}

function isToolFile(path: string): boolean {
  return path.startsWith('Tools/') && path.endsWith('.yaml');
}
