import { describe, expect, it } from 'vitest';
import type { FolderResult } from './folder-result.js';
import { NOTHING_TO_REPORT, renderResults, summaryLine } from './render.js';

const empty = (folder: string): FolderResult => ({
  folder,
  toolChanges: [],
  endpointChanges: [],
  breaking: 0,
  warnings: 0,
});

describe('summaryLine', () => {
  it('says when there is nothing to report, and counts otherwise', () => {
    expect(summaryLine([])).toBe(`${NOTHING_TO_REPORT}: no server folder touched.`);
    expect(summaryLine([empty('a'), empty('b')])).toBe(
      `${NOTHING_TO_REPORT}: 2 server folders touched, no tool or endpoint changes.`,
    );
    const hit: FolderResult = {
      ...empty('a'),
      endpointChanges: [{ endpoint: 'GET /a', kind: 'removed', breaking: true, details: [] }],
      breaking: 2,
      warnings: 1,
    };
    expect(summaryLine([hit, empty('b')])).toBe(
      '1 server folder with changes · **2 breaking changes hitting enabled tools** · 1 warning.',
    );
  });
});

describe('renderResults', () => {
  it('folds long lists into <details> and keeps output deterministic', () => {
    const many: FolderResult = {
      ...empty('mcp/big'),
      endpointChanges: Array.from({ length: 40 }, (_, i) => ({
        endpoint: `GET /r${String(39 - i).padStart(2, '0')}`,
        kind: 'added' as const,
        breaking: false,
        details: [],
      })),
    };
    const opts = { title: 't', reimportHeading: 'r' };
    const md = renderResults([many], opts);
    expect(md).toContain('<details><summary><b>Other endpoint changes (40)</b></summary>');
    expect(md.indexOf('`GET /r00`')).toBeLessThan(md.indexOf('`GET /r39`'));
    expect(renderResults([many], opts)).toBe(md);
  });
});
