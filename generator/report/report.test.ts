import { describe, expect, it } from 'vitest';
import type { ToolItem } from '../../folder/model.js';
import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { validate } from '../../schemas/validate.js';
import { diffEndpoints, diffWebhooks } from '../diff/index.js';
import { buildReport, reportHits } from './build-report.js';
import { renderReportMarkdown } from './render-markdown.js';
import { renderReportText } from './render-text.js';
import { shownPair } from './value-pair.js';

function ep(method: Endpoint['method'], path: string, extra: Partial<Endpoint> = {}): Endpoint {
  return { method, path, parameters: [], tags: [], deprecated: false, security: [], ...extra };
}
function tool(key: string, e: Endpoint, enabled: boolean): ToolItem {
  const t: SvcTool = {
    name: key,
    description: '',
    enabled,
    sortOrder: 0,
    origin: 'imported',
    endpoint: { method: e.method, path: e.path },
    classification: 'get',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  };
  return { key, file: `Tools/${key}.yaml`, tool: t };
}

describe('buildReport', () => {
  const q = (required: boolean) => [
    { name: 'q', in: 'query' as const, required, schema: { type: 'string' } },
  ];
  const before = [ep('GET', '/a', { parameters: q(false) }), ep('GET', '/b'), ep('GET', '/gone')];
  const after = [ep('GET', '/a', { parameters: q(true) }), ep('GET', '/b'), ep('POST', '/new')];

  it('counts, warns for enabled tools hit by a breaking change, and validates', () => {
    const report = buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: before.length,
      endpointsAfter: after.length,
      endpoints: diffEndpoints(before, after),
      notes: [
        {
          kind: 'tool-stale',
          tool: { key: 'gone', name: 'gone', endpoint: 'GET /gone', enabled: true },
          reason: 'enabled',
        },
      ],
      tools: [tool('a', after[0]!, true), tool('b', after[1]!, true)],
      changed: true,
    });
    expect(validate('report', report).ok).toBe(true);
    expect(report.counts.endpoints).toEqual({
      before: 3,
      after: 3,
      added: 1,
      removed: 1,
      changed: 1,
      unchanged: 1,
      breaking: 2,
    });
    expect(report.warnings.map((w) => `${w.id}:${w.tool}`)).toEqual([
      'enabled-tool-breaking-change:a',
      'enabled-tool-endpoint-removed:gone',
    ]);
    expect(report.summary).toBe('Endpoints: 1 added, 1 removed, 1 changed (2 breaking); 2 warnings.');
    expect(reportHits(report, 'breaking')).toBe(true);
    const md = renderReportMarkdown(report);
    expect(md.split('\n')[0]).toBe(`**${report.summary}**`);
    expect(md).toContain('`request-parameter-became-required`');
    expect(renderReportText(report)).toContain('~ GET /a  [breaking]');
  });

  it('flags an enabled tool whose endpoint now needs more OAuth scopes (diff rule and warning)', () => {
    const before = [ep('GET', '/items', { scopes: ['items:read'] }), ep('GET', '/other', { scopes: ['x'] })];
    const after = [
      ep('GET', '/items', { scopes: ['admin', 'items:read'] }),
      ep('GET', '/other', { scopes: ['x', 'y'] }),
    ];
    const endpoints = diffEndpoints(before, after);
    expect(endpoints[0]!.changes).toMatchObject([
      { id: 'security-scopes-widened', text: 'now needs OAuth scope admin', level: 'info' },
    ]);
    // Narrower scopes are not a widening.
    expect(diffEndpoints(after, before).flatMap((c) => c.changes.map((x) => x.id))).not.toContain(
      'security-scopes-widened',
    );
    const report = buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: 2,
      endpointsAfter: 2,
      endpoints,
      notes: [],
      // Only the enabled tool gets a warning: a disabled one asks nobody for anything.
      tools: [tool('items', after[0]!, true), tool('other', after[1]!, false)],
      changed: true,
    });
    expect(validate('report', report).ok).toBe(true);
    expect(report.warnings.map((w) => `${w.id}:${w.tool}`)).toEqual(['enabled-tool-scopes-widened:items']);
    expect(renderReportMarkdown(report)).toContain(
      '**Scopes widened** enabled tool items calls GET /items, which now needs OAuth scope admin',
    );
  });

  it('says nothing changed when nothing did', () => {
    const report = buildReport({
      source: { location: 'v1.json' },
      previous: { seq: 1 },
      endpointsBefore: 2,
      endpointsAfter: 2,
      endpoints: [],
      notes: [],
      tools: [],
      changed: false,
    });
    expect(report.summary).toMatch(/^Nothing changed/);
    expect(reportHits(report, 'any')).toBe(false);
    expect(reportHits(report, 'warning')).toBe(false);
  });

  it('counts webhook changes apart from the endpoints, even when more webhooks than endpoints change', () => {
    const hook = (name: string, required: boolean) =>
      ep('POST', `/${name}`, {
        requestBody: {
          required: true,
          contentType: 'application/json',
          schema: {
            type: 'object',
            properties: { id: { type: 'string' } },
            ...(required ? { required: ['id'] } : {}),
          },
        },
      });
    const hooksBefore = ['a', 'b', 'c'].map((n) => hook(n, true));
    const hooksAfter = [...['a', 'b'].map((n) => hook(n, false)), hook('d', true)];
    const report = buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: 1,
      endpointsAfter: 1,
      endpoints: diffWebhooks(hooksBefore, hooksAfter),
      notes: [],
      tools: [],
      changed: true,
    });
    expect(validate('report', report).ok).toBe(true);
    expect(report.counts.endpoints).toMatchObject({
      after: 1,
      added: 0,
      removed: 0,
      changed: 0,
      unchanged: 1,
    });
    expect(report.counts.webhooks).toEqual({ added: 1, removed: 1, changed: 2, breaking: 3 });
    expect(report.summary).toMatch(/^Webhooks: 1 added, 1 removed, 2 changed \(3 breaking\)\.$/);
    expect(renderReportMarkdown(report)).toContain('| Webhooks | 1 | 1 | 2 | 3 | |');
    expect(reportHits(report, 'any')).toBe(true);
  });

  it('keeps a 1,000-endpoint report within a pull-request comment, grouped and folded', () => {
    const many = Array.from({ length: 1000 }, (_, i) =>
      ep('GET', `/r${i % 40}/items${i}`, { parameters: q(false), tags: [`tag${i % 40}`] }),
    );
    const changed = many.map((e) => ({ ...e, parameters: q(true) }));
    const report = buildReport({
      source: { location: 'x' },
      previous: { seq: 1 },
      endpointsBefore: 1000,
      endpointsAfter: 1000,
      endpoints: diffEndpoints(many, changed),
      notes: [],
      tools: [],
      changed: true,
    });
    const md = renderReportMarkdown(report);
    expect(md.length).toBeLessThan(65_536);
    expect((md.match(/<details>/g) ?? []).length).toBe(40);
    expect(md).toContain('more endpoints are in the JSON report');
  });

  it('puts edits of enabled tools first and unfolded, with field, both values and why', () => {
    const change = (enabled: boolean, key: string) => ({
      key,
      name: `${key}_name`,
      enabled,
      endpoint: 'GET /a',
      fields: ['inputSchema.properties.q.default'],
      changes: [
        {
          field: 'inputSchema.properties.q.default',
          previous: 'sold',
          current: 'open',
          reason: 'the edited default is no longer a valid value of the parameter',
        },
      ],
      reason: 'the edited default is no longer a valid value of the parameter',
    });
    // Many disabled tools' resets (folded) and one enabled tool's reset and kept edit.
    const notes = [
      ...Array.from({ length: 40 }, (_, i) => ({
        kind: 'customization-reset' as const,
        reset: change(false, `d${i}`),
      })),
      { kind: 'customization-reset' as const, reset: change(true, 'zz_enabled') },
      {
        kind: 'customization-kept' as const,
        kept: {
          ...change(true, 'zz_enabled'),
          changes: [{ field: 'description', previous: 'Old.', current: 'New.', reason: 'kept' }],
        },
      },
    ];
    const report = buildReport({
      source: { location: 'x' },
      previous: { seq: 1 },
      endpointsBefore: 0,
      endpointsAfter: 0,
      endpoints: [],
      notes,
      tools: [],
      changed: true,
    });
    expect(validate('report', report).ok).toBe(true);
    const md = renderReportMarkdown(report);
    const enabled = md.indexOf('### Enabled tools (2)');
    expect(enabled).toBeGreaterThan(0);
    expect(enabled).toBeLessThan(md.indexOf('### ⚠️ Warnings'));
    const section = md.slice(enabled, md.indexOf('### ⚠️ Warnings'));
    expect(section).toContain(
      '`inputSchema.properties.q.default`: yours `sold` → now `open` — the edited default is no longer a valid value of the parameter',
    );
    expect(section).toContain("`description`: the API's `Old.` → `New.`; yours is kept");
    expect(section).not.toContain('<details>');
    expect(md.slice(md.indexOf('### Tools'))).toContain(
      '<details><summary>Edits reset on disabled tools (40)</summary>',
    );
    const text = renderReportText(report).split('\n');
    expect(text[text.findIndex((l) => l.startsWith('  reset') || l.startsWith('  kept'))]).toBe(
      '  reset enabled tool zz_enabled_name (Tools/zz_enabled.yaml) inputSchema.properties.q.default: yours "sold" → now "open" (the edited default is no longer a valid value of the parameter)',
    );
    expect(text).toContain(
      '  kept  enabled tool zz_enabled_name (Tools/zz_enabled.yaml) description: yours stays; upstream "Old." → "New."',
    );
  });

  it('stays within a comment when 1,000 enabled tools lose their endpoints', () => {
    const gone = Array.from({ length: 1000 }, (_, i) =>
      ep('DELETE', `/organizations/{org}/very/long/path/segment/number/${i}/items/{item_id}`, {
        tags: [`t${i % 7}`],
      }),
    );
    const notes = gone.map((e, i) => ({
      kind: 'tool-stale' as const,
      tool: {
        key: `tool_${i}`,
        name: `delete_a_rather_long_tool_name_${i}`,
        endpoint: `${e.method} ${e.path}`,
        enabled: true,
      },
      reason: 'enabled',
    }));
    const report = buildReport({
      source: { location: 'x' },
      previous: { seq: 1 },
      endpointsBefore: 1000,
      endpointsAfter: 0,
      endpoints: diffEndpoints(gone, []),
      notes,
      tools: [],
      changed: true,
    });
    expect(report.counts.warnings).toBe(1000);
    const md = renderReportMarkdown(report);
    expect(md.length).toBeLessThan(60_000);
    // Enabled tools come first and are never folded: listed until the section's budget, then counted.
    expect(md.indexOf('### Enabled tools (1000)')).toBeLessThan(md.indexOf('### Endpoints'));
    expect(md.slice(0, md.indexOf('### Endpoints'))).not.toContain('<details>');
    expect(md).toMatch(/… and \d+ more \(`svc diff --format json` lists all\)/);
  });
});

describe('renderReportMarkdown: documentation-only changes', () => {
  it('folds endpoints whose only changes are documentation into one line, after the rest', () => {
    const before = Array.from({ length: 40 }, (_, i) => ep('GET', `/r${i}`, { summary: 'old words' }));
    const after = before.map((e, i) =>
      i === 7 ? { ...e, deprecated: true } : { ...e, summary: 'new words' },
    );
    const report = buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: before.length,
      endpointsAfter: after.length,
      endpoints: diffEndpoints(before, after),
      notes: [],
      tools: [],
      changed: true,
    });
    const md = renderReportMarkdown(report);
    expect(md).toMatch(/- 📝 39 endpoints with documentation-only changes: `GET \/r0`, .* and 31 more/);
    expect(md).not.toContain('`GET /r1`:');
    expect(md).toContain('**Changed** `GET /r7`');
    expect(md.indexOf('**Changed** `GET /r7`')).toBeLessThan(md.indexOf('📝'));
  });
});

describe('renderReportMarkdown: what tools/list costs', () => {
  const cost = (mode: 'all' | 'search', served: number, bytes: number) =>
    ({ setting: 'auto', mode, served, pinned: 0, bytes, allBytes: mode === 'all' ? bytes : 90_000 }) as const;
  const report = (toolsList: Parameters<typeof buildReport>[0]['toolsList']) =>
    buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: 0,
      endpointsAfter: 0,
      endpoints: [],
      notes: [],
      tools: [],
      changed: true,
      ...(toolsList ? { toolsList } : {}),
    });

  it('says so when the import moves it, and stays quiet when it does not', () => {
    const moved = renderReportMarkdown(
      report({ before: cost('all', 41, 30_000), after: cost('search', 42, 1_300) }),
    );
    expect(moved).toContain(
      '**tools/list:** all, 29.3 KB (41 tools listed) → search, 1.3 KB (42 tools found by search, 0 pinned; 87.9 KB if each were listed)',
    );
    const same = renderReportMarkdown(report({ before: cost('all', 3, 900), after: cost('all', 3, 900) }));
    expect(same).not.toContain('tools/list');
    expect(renderReportMarkdown(report({ after: cost('all', 3, 900) }))).not.toContain('tools/list');
  });
});

describe('values of an edited field in the report', () => {
  it('show where yours and now differ, not a prefix they share', () => {
    const schema = (maxItems?: number) => ({
      oneOf: [
        {
          type: 'array',
          items: { type: 'string', description: 'A label name, as shown in the repository.' },
        },
        { type: 'string', description: 'A single label name.', ...(maxItems ? { maxItems } : {}) },
      ],
    });
    const [yours, now] = shownPair(schema(10), schema(), 80);
    expect(yours).not.toEqual(now);
    expect(yours).toContain('"maxItems":10');
    expect(now).not.toContain('maxItems');
    expect(yours!.length).toBeLessThanOrEqual(80);
    expect(yours!.startsWith('…')).toBe(true);
    // Short values are shown whole.
    expect(shownPair(1, 2, 80)).toEqual(['1', '2']);
    expect(shownPair(undefined, 'x', 80)).toEqual([undefined, '"x"']);
  });
});

describe('reportHits on tuned levels (config.yaml diff.rules)', () => {
  const q = (required: boolean) => [
    { name: 'q', in: 'query' as const, required, schema: { type: 'string' } },
  ];
  const before = [ep('GET', '/a', { parameters: q(false) })];
  const after = [ep('GET', '/a', { parameters: q(true) })];
  const report = (levels?: Record<string, 'breaking' | 'warning' | 'info' | 'off'>) =>
    buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: 1,
      endpointsAfter: 1,
      endpoints: diffEndpoints(before, after, levels ? { levels } : {}),
      notes: [],
      tools: [tool('a', after[0]!, true)],
      changed: true,
    });

  it('fails on breaking by default, on warning once lowered to warning, on nothing once off', () => {
    expect(reportHits(report(), 'breaking')).toBe(true);
    const lowered = report({ 'request-parameter-became-required': 'warning' });
    expect(validate('report', lowered).ok).toBe(true);
    expect(reportHits(lowered, 'breaking')).toBe(false);
    expect(reportHits(lowered, 'warning')).toBe(true);
    const off = report({ 'request-parameter-became-required': 'off' });
    expect(off.endpoints).toEqual([]);
    expect(reportHits(off, 'warning')).toBe(false);
  });

  it('fails on breaking once an info rule is raised', () => {
    const loosened = buildReport({
      source: { location: 'v2.json' },
      previous: { seq: 1 },
      endpointsBefore: 1,
      endpointsAfter: 1,
      endpoints: diffEndpoints(after, before, {
        levels: { 'request-parameter-became-optional': 'breaking' },
      }),
      notes: [],
      tools: [tool('a', before[0]!, true)],
      changed: true,
    });
    expect(reportHits(loosened, 'breaking')).toBe(true);
  });
});
