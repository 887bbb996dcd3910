/**
 * The checklist of an import from start to end: its rows for the source, and how they settle with
 * the counts a plan found (or a replay recorded). Apart from the planner, so the unchanged replay
 * loads none of it.
 */
import { Checklist, type ChecklistKind, type ChecklistRow } from './checklist.js';

/** The content rows, in the order the checklist shows them. */
export const CONTENT_ROWS: ChecklistKind[] = ['resources', 'skills', 'prompts', 'widgets', 'docs'];

/** How the checklist settles once the folder is written (the shell settles it after writing). */
export interface ChecklistCounts {
  tools: number;
  warnings: number;
  content: Partial<Record<ChecklistKind, number>>;
}

/** A checklist for the source: content rows when it has a content directory; Tools processing. */
export function startChecklist(
  source: { contentDir?: string; toolsOnly: boolean } | undefined,
  onProgress?: (rows: ChecklistRow[]) => void,
): Checklist {
  const checklist = new Checklist(source?.contentDir !== undefined, onProgress);
  if (source?.toolsOnly) {
    checklist.note('resources', 'tools only: a raw URL cannot list content directories (spec 2.5 rule 9)');
  }
  return checklist;
}

/** Settles every row with its count (and a note for the warnings). */
export function settleChecklist(checklist: Checklist, counts: ChecklistCounts): void {
  checklist.complete('tools', counts.tools);
  if (counts.warnings > 0) checklist.note('tools', plural(counts.warnings, 'warning'));
  for (const row of checklist.rows)
    if (row.kind !== 'tools') checklist.complete(row.kind, counts.content[row.kind] ?? 0);
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'} (below)`;
}
