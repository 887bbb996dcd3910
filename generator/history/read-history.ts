import { SvcError } from '../../core/svc-error.js';
import type { FolderFiles } from '../../folder/model.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { formatViolations, validate } from '../../schemas/validate.js';
import { HISTORY_DIR, historyPath } from './paths.js';

/** Every import record of a folder, oldest first. An unreadable record is an error naming its file. */
export function readHistory(files: FolderFiles): HistoryRecord[] {
  const records: HistoryRecord[] = [];
  const paths = Object.keys(files)
    .filter((p) => p.startsWith(`${HISTORY_DIR}/`) && p.endsWith('.json'))
    .sort();
  for (const path of paths) records.push(parseRecord(path, files[path] ?? ''));
  records.sort((a, b) => a.seq - b.seq);
  // A record that shares an earlier record's endpoints reads as if it listed them.
  const bySeq = new Map(records.map((r) => [r.seq, r]));
  return records.map((r) => {
    if (r.endpoints || r.endpointsOf === undefined) return r;
    const source = bySeq.get(r.endpointsOf);
    if (!source?.endpoints) {
      throw new SvcError(
        'FOLDER_INVALID',
        `import history record refers to record ${r.endpointsOf}, which lists no endpoints`,
        {
          place: { file: historyPath(r.seq), field: 'endpointsOf' },
        },
      );
    }
    return { ...r, endpoints: source.endpoints };
  });
}

/** One record file's text, parsed and checked against its schema; an error names the file. */
export function parseRecord(path: string, text: string): HistoryRecord {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw new SvcError('FOLDER_INVALID', 'import history record is not JSON', {
      place: { file: path },
      cause,
    });
  }
  const checked = validate('history', value);
  if (!checked.ok) {
    throw new SvcError('FOLDER_INVALID', 'import history record does not match its schema', {
      place: { file: path },
      details: formatViolations(checked.errors),
    });
  }
  return checked.value;
}

/** The most recent complete import, whose endpoints the next import is compared with. */
export function lastComplete(records: readonly HistoryRecord[]): HistoryRecord | undefined {
  for (let i = records.length - 1; i >= 0; i--) if (records[i]!.status === 'complete') return records[i];
  return undefined;
}

export function nextSeq(records: readonly HistoryRecord[]): number {
  return records.reduce((max, r) => Math.max(max, r.seq), 0) + 1;
}

/** path → sha256 of what the last import wrote; empty when unknown. */
export function readWritten(files: FolderFiles, path: string): Record<string, string> {
  const text = files[path];
  if (text === undefined) return {};
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
      return parsed as Record<string, string>;
  } catch {
    // fall through: an unreadable hash file only means every content file counts as hand-edited
  }
  return {};
}
