import type { FolderFiles } from '../../folder/model.js';
import type { Endpoint, HistoryRecord } from '../../schemas/types.js';
import { canonicalJson } from './canonical-json.js';
import { storeEndpoints } from './endpoint-store.js';
import { historyPath, isBookkeeping, RETAINED_SPECS, SPECS_DIR, specPath, WRITTEN_FILE } from './paths.js';
import { readHistory } from './read-history.js';

export interface BookkeepingInput {
  /** The folder as it is now; only its .svc/ part is read. */
  previous: FolderFiles;
  /** This import's record. For a complete import its `endpoints` are filled in here. */
  record: HistoryRecord;
  /** Complete imports: the normalized endpoints, the raw document, and hashes of the content files written. */
  endpoints?: readonly Endpoint[];
  document?: { text: string; sha256: string };
  written?: Record<string, string>;
}

/**
 * The whole .svc/ part of the folder after one more import, pure. A failed import only adds
 * its record; a complete one also stores its new endpoints, its raw document (keeping the
 * three most recent valid imports' documents) and the hashes of what it wrote.
 */
export function nextBookkeeping(input: BookkeepingInput): { files: FolderFiles; record: HistoryRecord } {
  const files: FolderFiles = {};
  for (const [path, text] of Object.entries(input.previous)) if (isBookkeeping(path)) files[path] = text;
  const record: HistoryRecord = { ...input.record };

  if (record.status === 'complete' && input.endpoints) {
    const stored = storeEndpoints(files, record.seq, input.endpoints);
    record.endpoints = [...stored.hashes].sort();
    if (stored.file) files[stored.file.path] = stored.file.content;
  }
  if (record.status === 'complete' && input.document) {
    files[specPath(input.document.sha256, input.document.text)] = input.document.text;
  }
  if (record.status === 'complete' && input.written) files[WRITTEN_FILE] = canonicalJson(input.written);

  files[historyPath(record.seq)] = canonicalJson(record);

  const records = readHistory(files);
  const keep = new Set(
    records
      .filter((r) => r.status === 'complete' && r.revision?.documentSha256)
      .slice(-RETAINED_SPECS)
      .map((r) => r.revision!.documentSha256!.slice(0, 16)),
  );
  for (const path of Object.keys(files)) {
    if (!path.startsWith(`${SPECS_DIR}/`)) continue;
    const stem = path.slice(SPECS_DIR.length + 1).split('.')[0] ?? '';
    if (!keep.has(stem)) delete files[path];
  }
  return { files, record };
}
