import { describe, expect, it } from 'vitest';
import type { FolderResult } from './folder-result.js';
import { NOTHING_TO_REPORT, renderResults, shares, summaryLine } from './render.js';

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

describe('renderResults with a budget', () => {
  it('gives every folder its share, keeps <details> balanced, and links the full report', () => {
    const nested = Array.from({ length: 400 }, (_, i) =>
      i % 20 === 0
        ? `<details><summary>group ${i}</summary>\n\n- line ${i}`
        : i % 20 === 19
          ? `- line ${i}\n\n</details>`
          : `- line ${i} ${'x'.repeat(80)}`,
    ).join('\n');
    const big: FolderResult = {
      ...empty('mcp/a-big'),
      reimport: {
        status: 'complete',
        changed: true,
        summary: 'lots',
        markdown: nested,
        breakingEnabled: 0,
        warnings: 0,
      },
    };
    const small: FolderResult = {
      ...empty('mcp/b-small'),
      endpointChanges: [{ endpoint: 'GET /x', kind: 'removed', breaking: true, details: [] }],
      breaking: 1,
    };
    const md = renderResults([big, small], {
      title: 't',
      reimportHeading: 'r',
      enabled: new Map([['mcp/b-small', new Map([['GET /x', 'get_x']])]]),
      maxChars: 8_000,
      fullReport: '[the run](https://example.test/run)',
    });
    expect(md.length).toBeLessThanOrEqual(8_000);
    expect(md).toContain('#### `mcp/b-small` · 🔴 1 breaking change hitting enabled tools');
    expect(md).toContain('- 🔴 `GET /x` removed — hits an enabled tool (`get_x`)');
    expect(md).toMatch(
      /_… \d+ more entries cut to fit the comment: \[the run\]\(https:\/\/example.test\/run\)_/,
    );
    expect((md.match(/<details>/g) ?? []).length).toBe((md.match(/<\/details>/g) ?? []).length);
  });

  it('shares room: small sections take what they need, the rest is split evenly', () => {
    expect(shares([100, 5_000, 5_000], 6_100)).toEqual([100, 3_000, 3_000]);
    expect(shares([10, 20], 1_000)).toEqual([10, 20]);
  });
});
