/**
 * The import checklist (spec 3.1): one row per imported kind that settles with its count.
 * Tools and Resources always; the other kinds only when content is imported.
 */
import type { ContentKind } from '../../folder/model.js';

export type ChecklistKind = 'tools' | 'resources' | 'skills' | 'prompts' | 'widgets' | 'docs';

export interface ChecklistRow {
  kind: ChecklistKind;
  /** Tools, Resources, Skills, Prompts, Widgets, Documentation */
  label: string;
  status: 'pending' | 'processing' | 'complete' | 'failed';
  count?: number;
  error?: string;
  /** Why a row holds less than it might: "tools only: …". */
  note?: string;
}

const LABELS: Record<ChecklistKind, string> = {
  tools: 'Tools',
  resources: 'Resources',
  skills: 'Skills',
  prompts: 'Prompts',
  widgets: 'Widgets',
  docs: 'Documentation',
};

export class Checklist {
  readonly rows: ChecklistRow[];

  constructor(
    withContent: boolean,
    private readonly onProgress?: (rows: ChecklistRow[]) => void,
  ) {
    const kinds: ChecklistKind[] = withContent
      ? ['tools', 'resources', 'skills', 'prompts', 'widgets', 'docs']
      : ['tools', 'resources'];
    this.rows = kinds.map((kind) => ({ kind, label: LABELS[kind], status: 'pending' }));
  }

  private emit(): void {
    this.onProgress?.(this.rows.map((r) => ({ ...r })));
  }

  processing(kinds: readonly ChecklistKind[]): void {
    for (const row of this.rows)
      if (kinds.includes(row.kind) && row.status === 'pending') row.status = 'processing';
    this.emit();
  }

  complete(kind: ChecklistKind, count: number): void {
    const row = this.rows.find((r) => r.kind === kind);
    if (row) Object.assign(row, { status: 'complete', count });
    this.emit();
  }

  note(kind: ChecklistKind, text: string): void {
    const row = this.rows.find((r) => r.kind === kind);
    if (row) row.note = text;
    this.emit();
  }

  /** Marks the failed step; rows that had not settled stay pending (they never ran). */
  fail(kind: ChecklistKind, error: string): void {
    for (const row of this.rows) if (row.status === 'processing') row.status = 'pending';
    const row = this.rows.find((r) => r.kind === kind) ?? this.rows[0]!;
    row.status = 'failed';
    row.error = error;
    this.emit();
  }

  snapshot(): ChecklistRow[] {
    return this.rows.map((r) => ({ ...r }));
  }
}

export function checklistKindOfPath(path: string | undefined): ChecklistKind | undefined {
  const dir = path?.split('/')[0]?.toLowerCase();
  const byDir: Record<string, ContentKind> = {
    skills: 'skills',
    prompts: 'prompts',
    resources: 'resources',
    docs: 'docs',
    widgets: 'widgets',
  };
  return dir ? byDir[dir] : undefined;
}
