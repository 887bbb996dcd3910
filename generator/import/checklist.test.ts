import { describe, expect, it } from 'vitest';
import { Checklist, checklistKindOfPath } from './checklist.js';

describe('Checklist', () => {
  it('has Tools and Resources always, the content kinds only with content', () => {
    expect(new Checklist(false).rows.map((r) => r.label)).toEqual(['Tools', 'Resources']);
    expect(new Checklist(true).rows.map((r) => r.label)).toEqual([
      'Tools',
      'Resources',
      'Skills',
      'Prompts',
      'Widgets',
      'Documentation',
    ]);
  });

  it('reports every step to onProgress and marks only the failed step failed', () => {
    const seen: string[][] = [];
    const list = new Checklist(true, (rows) => seen.push(rows.map((r) => r.status)));
    list.processing(['tools']);
    list.processing(['resources', 'skills', 'prompts', 'widgets', 'docs']);
    list.fail('prompts', 'CONTENT_INVALID: Prompts/x.md: bad');
    expect(seen[0]).toEqual(['processing', 'pending', 'pending', 'pending', 'pending', 'pending']);
    expect(seen[1]).toEqual([
      'processing',
      'processing',
      'processing',
      'processing',
      'processing',
      'processing',
    ]);
    expect(seen).toHaveLength(3);
    expect(list.snapshot().map((r) => r.status)).toEqual([
      'pending',
      'pending',
      'pending',
      'failed',
      'pending',
      'pending',
    ]);
    expect(list.snapshot()[3]!.error).toBe('CONTENT_INVALID: Prompts/x.md: bad');
  });

  it('maps a content path to its row', () => {
    expect(checklistKindOfPath('Docs/guides/a.md')).toBe('docs');
    expect(checklistKindOfPath('widgets/card.html')).toBe('widgets');
    expect(checklistKindOfPath('Tools/x.yaml')).toBeUndefined();
  });
});
