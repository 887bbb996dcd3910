import type { FolderFiles } from '../../folder/model.js';
import type { Endpoint, HistoryRecord } from '../../schemas/types.js';
import { prettyCanonicalJson } from '../../core/canonical-json.js';
import { type EndpointStores, type HashedEndpoints, storeEndpoints } from './endpoint-store.js';
import { GENERATED_FILE } from './generated-store.js';
import {
  FOLDER_DOCUMENT,
  historyPath,
  isBookkeeping,
  RETAINED_SPECS,
  SPECS_DIR,
  specPath,
  WRITTEN_FILE,
} from './paths.js';
import { lastComplete, parseRecord, readHistory } from './read-history.js';

export interface BookkeepingInput {
  /** The folder as it is now; only its .svc/ part is read. */
  previous: FolderFiles;
  /** This import's record. For a complete import its `endpoints` are filled in here. */
  record: HistoryRecord;
  /** Complete imports: the normalized endpoints, the raw document, and hashes of the content files written. */
  endpoints?: readonly Endpoint[];
  document?: { text: string; sha256: string };
  written?: Record<string, string>;
  /** The records of `previous` as readHistory reads them, when the caller has them already. */
  records?: readonly HistoryRecord[];
  /** The endpoint stores of `previous` and the endpoints' hashes, when the caller has them already. */
  stores?: EndpointStores;
  hashed?: HashedEndpoints;
  /** Complete imports: .svc/generated.json's text (the merge base of the next import). */
  generated?: string;
}

/**
 * The whole .svc/ part of the folder after one more import, pure. A failed import only adds
 * its record; a complete one also stores its new endpoints, the hashes of what it wrote, the
 * generated tools and the raw documents of the three most recent valid imports. Each document
 * is stored once: the current one is Tools/openapi.json itself, so .svc/specs/ holds only the
 * earlier ones (a document moves there when an import replaces it). A record whose endpoints
 * are those of the previous import refers to that record instead of repeating the list.
 */
export function nextBookkeeping(input: BookkeepingInput): { files: FolderFiles; record: HistoryRecord } {
  const files: FolderFiles = {};
  for (const [path, text] of Object.entries(input.previous)) if (isBookkeeping(path)) files[path] = text;
  const record: HistoryRecord = { ...input.record };
  const earlier = input.records ?? readHistory(files);
  const before = lastComplete(earlier);

  if (record.status === 'complete' && input.endpoints) {
    const stored = storeEndpoints(files, record.seq, input.endpoints, {
      ...(input.stores ? { stores: input.stores } : {}),
      ...(input.hashed ? { hashed: input.hashed } : {}),
    });
    record.endpoints = [...stored.hashes].sort();
    if (stored.file) files[stored.file.path] = stored.file.content;
    if (before?.endpoints && sameList(before.endpoints, record.endpoints)) {
      delete record.endpoints;
      record.endpointsOf = before.endpointsOf ?? before.seq;
    }
  }
  const previousSha = before?.revision?.documentSha256;
  const previousText = input.previous[FOLDER_DOCUMENT];
  if (record.status === 'complete' && input.document && previousSha && previousText !== undefined) {
    // The document this import replaces in Tools/openapi.json is kept (while retained) here.
    if (previousSha !== input.document.sha256) files[specPath(previousSha, previousText)] = previousText;
  }
  if (record.status === 'complete' && input.written) files[WRITTEN_FILE] = prettyCanonicalJson(input.written);
  if (record.status === 'complete' && input.generated !== undefined) files[GENERATED_FILE] = input.generated;

  const recordPath = historyPath(record.seq);
  const recordText = prettyCanonicalJson(record);
  files[recordPath] = recordText;

  // The earlier records as read, and this one as it reads back (checked as readHistory checks it).
  const records = [...earlier.filter((r) => r.seq !== record.seq), parseRecord(recordPath, recordText)];
  records.sort((a, b) => a.seq - b.seq);
  const current = lastComplete(records)?.revision?.documentSha256?.slice(0, 16);
  // The documents of the three most recent distinct valid imports: importing the same document
  // again (a no-op import) counts once, so it never pushes an earlier document out.
  const recent: string[] = [];
  for (const r of [...records].reverse()) {
    const sha = r.status === 'complete' ? r.revision?.documentSha256?.slice(0, 16) : undefined;
    if (sha !== undefined && !recent.includes(sha)) recent.push(sha);
    if (recent.length === RETAINED_SPECS) break;
  }
  const keep = new Set(recent.filter((sha) => sha !== current));
  for (const path of Object.keys(files)) {
    if (!path.startsWith(`${SPECS_DIR}/`)) continue;
    const stem = path.slice(SPECS_DIR.length + 1).split('.')[0] ?? '';
    if (!keep.has(stem)) delete files[path];
  }
  return { files, record };
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
