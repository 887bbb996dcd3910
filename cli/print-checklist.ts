import type { ChecklistRow } from '../generator/import/index.js';

const MARK: Record<ChecklistRow['status'], string> = {
  pending: '·',
  processing: '…',
  complete: '✓',
  failed: '✗',
};

/**
 * The import checklist as terminal lines: one row per kind, settled with its count. A failed row
 * only points at the error, which the command prints once, in full, on stderr.
 */
export function formatChecklist(rows: readonly ChecklistRow[]): string {
  const width = Math.max(0, ...rows.map((r) => r.label.length));
  const lines = rows.map((row) => {
    const count = row.count === undefined ? '' : String(row.count);
    const line =
      `  ${MARK[row.status]} ${row.label.padEnd(width)}  ${count}${row.note ? `  (${row.note})` : ''}`.trimEnd();
    return row.status === 'failed' ? `${line}  ← failed (the error follows)` : line;
  });
  return `${lines.join('\n')}\n`;
}
