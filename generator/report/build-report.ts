import type { ToolItem } from '../../folder/model.js';
import { SvcError } from '../../core/svc-error.js';
import type {
  ContentChange,
  CustomizationReset,
  EndpointChange,
  ImportReport,
  ReportWarning,
  ToolRef,
} from '../../schemas/types.js';
import { formatViolations, validate } from '../../schemas/validate.js';
import { endpointMatchKey, isWebhookKey } from '../diff/endpoint-key.js';
import type { MergeNote } from '../merge/merge-notes.js';

export interface ReportInput {
  source: { location: string; documentSha256?: string };
  previous?: { seq: number; documentSha256?: string };
  /** How many endpoints each import had. */
  endpointsBefore: number;
  endpointsAfter: number;
  endpoints: EndpointChange[];
  notes: MergeNote[];
  /** The folder's tools after the import. */
  tools: ToolItem[];
  /** Whether any file outside .svc/ changed. */
  changed: boolean;
  /** What tools/list costs a client before and after the import (folder/tools-list-cost.ts). */
  toolsList?: ImportReport['toolsList'];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function summaryLine(r: Omit<ImportReport, 'summary'>, first: boolean): string {
  const e = r.counts.endpoints;
  const t = r.counts.tools;
  if (first) {
    return `First import: ${plural(e.after, 'endpoint')}, ${plural(t.total, 'tool')} (${t.enabled} enabled)${
      r.counts.content.added ? `, ${plural(r.counts.content.added, 'content item')}` : ''
    }.`;
  }
  const parts: string[] = [];
  if (e.added || e.removed || e.changed) {
    parts.push(
      `endpoints: ${e.added} added, ${e.removed} removed, ${e.changed} changed${e.breaking ? ` (${e.breaking} breaking)` : ''}`,
    );
  }
  const w = r.counts.webhooks;
  if (w) {
    parts.push(
      `webhooks: ${w.added} added, ${w.removed} removed, ${w.changed} changed${w.breaking ? ` (${w.breaking} breaking)` : ''}`,
    );
  }
  const c = r.counts.content;
  if (c.added || c.updated || c.skipped || c.removed) {
    const kinds = [
      [c.added, 'added'],
      [c.updated, 'updated'],
      [c.skipped, 'skipped'],
      [c.removed, 'removed'],
    ] as const;
    parts.push(
      `content: ${kinds
        .filter(([n]) => n > 0)
        .map(([n, w]) => `${n} ${w}`)
        .join(', ')}`,
    );
  }
  if (t.customizationsReset) parts.push(`${plural(t.customizationsReset, 'customization')} reset`);
  if (r.counts.warnings) parts.push(plural(r.counts.warnings, 'warning'));
  if (parts.length === 0) {
    return r.changed
      ? `Updated; no endpoint changed (${plural(e.after, 'endpoint')}, ${t.enabled} of ${plural(t.total, 'tool')} enabled).`
      : `Nothing changed (${plural(e.after, 'endpoint')}, ${t.enabled} of ${plural(t.total, 'tool')} enabled).`;
  }
  const line = parts.join('; ');
  return `${line.charAt(0).toUpperCase()}${line.slice(1)}.`;
}

/** What hits enabled tools through their endpoints: scopes widened, then breaking changes. */
function enabledToolWarnings(input: ReportInput): ReportWarning[] {
  const out: ReportWarning[] = [];
  const breakingByKey = new Map<string, EndpointChange>();
  for (const change of input.endpoints) {
    if (change.kind === 'changed' && change.breaking)
      breakingByKey.set(endpointMatchKey(change.method, change.path), change);
  }
  // A person signing in to a user_oauth server is asked for every scope the enabled tools need:
  // a reviewer sees the widening before it ships.
  const widenedByKey = new Map<string, { key: string; text: string }>();
  for (const change of input.endpoints) {
    if (change.kind !== 'changed') continue;
    const widened = change.changes.find((c) => c.id === 'security-scopes-widened');
    if (widened)
      widenedByKey.set(endpointMatchKey(change.method, change.path), { key: change.key, text: widened.text });
  }
  for (const { key, tool } of input.tools) {
    if (!tool.enabled || tool.origin !== 'imported') continue;
    const widened = widenedByKey.get(endpointMatchKey(tool.endpoint.method, tool.endpoint.path));
    if (!widened) continue;
    out.push({
      id: 'enabled-tool-scopes-widened',
      text: `enabled tool ${tool.name} calls ${widened.key}, which ${widened.text}: people signing in are asked for it`,
      tool: key,
      endpoint: widened.key,
    });
  }
  for (const { key, tool } of input.tools) {
    if (!tool.enabled || tool.origin !== 'imported') continue;
    const change = breakingByKey.get(endpointMatchKey(tool.endpoint.method, tool.endpoint.path));
    if (!change) continue;
    const ids = [...new Set(change.changes.filter((c) => c.level === 'breaking').map((c) => c.id))];
    out.push({
      id: 'enabled-tool-breaking-change',
      text: `enabled tool ${tool.name} calls ${change.key}, which has a breaking change (${ids.join(', ')})`,
      tool: key,
      endpoint: change.key,
    });
  }
  return out;
}

/** The import's report as data, checked against schemas/report.schema.json. Pure. */
export function buildReport(input: ReportInput): ImportReport {
  const added: ToolRef[] = [];
  const removed: ToolRef[] = [];
  const stale: ToolRef[] = [];
  const resets: CustomizationReset[] = [];
  const kept: CustomizationReset[] = [];
  const content: ContentChange[] = [];
  const warnings: ReportWarning[] = [];

  for (const note of input.notes) {
    switch (note.kind) {
      case 'tool-added':
        added.push(note.tool);
        break;
      case 'tool-removed':
        removed.push(note.tool);
        break;
      case 'tool-stale':
        stale.push(note.tool);
        warnings.push(
          note.tool.enabled
            ? {
                id: 'enabled-tool-endpoint-removed',
                text: `enabled tool ${note.tool.name} calls ${note.tool.endpoint}, which the API removed; it is kept and marked stale`,
                tool: note.tool.key,
                ...(note.tool.endpoint ? { endpoint: note.tool.endpoint } : {}),
              }
            : {
                id: 'tool-kept-stale',
                text: `customized tool ${note.tool.name} calls ${note.tool.endpoint}, which the API removed; it is kept and marked stale`,
                tool: note.tool.key,
                ...(note.tool.endpoint ? { endpoint: note.tool.endpoint } : {}),
              },
        );
        break;
      case 'customization-reset':
        resets.push(note.reset);
        warnings.push({
          id: 'customization-reset',
          text: `${note.reset.enabled ? 'enabled ' : ''}tool ${note.reset.name ?? note.reset.key}: edited ${note.reset.fields.join(', ')} reset because ${note.reset.endpoint} changed (${note.reset.reason})`,
          tool: note.reset.key,
          endpoint: note.reset.endpoint,
        });
        break;
      case 'customization-kept':
        kept.push(note.kept);
        break;
      case 'tool-renamed-unique':
        if (note.tool.enabled) {
          warnings.push({
            id: 'enabled-tool-renamed',
            text: `enabled tool ${note.wanted} is now called ${note.tool.name}: another tool took its name`,
            tool: note.tool.key,
            ...(note.tool.endpoint ? { endpoint: note.tool.endpoint } : {}),
          });
        }
        break;
      case 'content':
        content.push(note.change);
        if (note.change.action === 'skipped' || note.change.action === 'kept') {
          warnings.push({
            id: note.change.action === 'skipped' ? 'content-skipped' : 'content-kept',
            text: `${note.change.file}: ${note.change.reason ?? note.change.action}`,
            file: note.change.file,
          });
        }
        break;
    }
  }

  warnings.push(...enabledToolWarnings(input));
  warnings.sort((a, b) => (a.id === b.id ? (a.text < b.text ? -1 : 1) : a.id < b.id ? -1 : 1));

  const endpoints = withTools(input.endpoints, input.tools, removed, stale, added);
  // Webhooks are counted apart: the endpoint totals (before, after) name operations only.
  const webhookChanges = input.endpoints.filter((c) => isWebhookKey(c.key));
  const endpointChanges = input.endpoints.filter((c) => !isWebhookKey(c.key));
  const countIn = (changes: EndpointChange[], kind: EndpointChange['kind']) =>
    changes.filter((c) => c.kind === kind).length;
  const count = (kind: EndpointChange['kind']) => countIn(endpointChanges, kind);
  const contentCount = (action: ContentChange['action']) => content.filter((c) => c.action === action).length;
  const byKey = (a: ToolRef, b: ToolRef) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const body: Omit<ImportReport, 'summary'> = {
    schemaVersion: 1,
    changed: input.changed,
    source: input.source,
    ...(input.previous ? { previous: input.previous } : {}),
    counts: {
      endpoints: {
        before: input.endpointsBefore,
        after: input.endpointsAfter,
        added: count('added'),
        removed: count('removed'),
        changed: count('changed'),
        unchanged: input.endpointsAfter - count('added') - count('changed'),
        breaking: endpointChanges.filter((c) => c.breaking).length,
      },
      ...(webhookChanges.length > 0
        ? {
            webhooks: {
              added: countIn(webhookChanges, 'added'),
              removed: countIn(webhookChanges, 'removed'),
              changed: countIn(webhookChanges, 'changed'),
              breaking: webhookChanges.filter((c) => c.breaking).length,
            },
          }
        : {}),
      tools: {
        total: input.tools.length,
        enabled: input.tools.filter((t) => t.tool.enabled).length,
        added: added.length,
        removed: removed.length,
        stale: stale.length,
        customizationsReset: resets.length,
      },
      content: {
        added: contentCount('added'),
        updated: contentCount('updated'),
        skipped: contentCount('skipped'),
        removed: contentCount('removed'),
      },
      warnings: warnings.length,
    },
    endpoints,
    tools: {
      added: added.sort(byKey),
      removed: removed.sort(byKey),
      stale: stale.sort(byKey),
      customizationsReset: resets.sort((a, b) => (a.key < b.key ? -1 : 1)),
      ...(kept.length > 0 ? { customizationsKept: kept.sort((a, b) => (a.key < b.key ? -1 : 1)) } : {}),
    },
    content: content.sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)),
    warnings,
    ...(input.toolsList ? { toolsList: input.toolsList } : {}),
  };
  const report: ImportReport = { ...body, summary: summaryLine(body, !input.previous) };
  const checked = validate('report', report);
  if (!checked.ok) {
    throw new SvcError('INTERNAL', 'the import report does not match its schema', {
      details: formatViolations(checked.errors),
    });
  }
  return report;
}

function keyOfLabel(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const space = label.indexOf(' ');
  return space > 0 ? endpointMatchKey(label.slice(0, space), label.slice(space + 1)) : undefined;
}

/** Each endpoint change with the folder's tool for it and what the import did to that tool. */
function withTools(
  changes: readonly EndpointChange[],
  tools: readonly ToolItem[],
  removed: readonly ToolRef[],
  stale: readonly ToolRef[],
  added: readonly ToolRef[],
): EndpointChange[] {
  const current = new Map<string, ToolRef>();
  for (const { key, tool } of tools) {
    if (tool.origin !== 'imported' || tool.stale) continue;
    const k = endpointMatchKey(tool.endpoint.method, tool.endpoint.path);
    if (!current.has(k)) {
      current.set(k, {
        key,
        name: tool.name,
        endpoint: `${tool.endpoint.method} ${tool.endpoint.path}`,
        enabled: tool.enabled,
      });
    }
  }
  const gone = new Map<string, { tool: ToolRef; fate: 'removed' | 'kept-stale' }>();
  for (const tool of removed) gone.set(keyOfLabel(tool.endpoint) ?? '', { tool, fate: 'removed' });
  for (const tool of stale) gone.set(keyOfLabel(tool.endpoint) ?? '', { tool, fate: 'kept-stale' });
  const fresh = new Set(added.map((t) => t.key));
  return changes.map((change) => {
    const k = endpointMatchKey(change.method, change.path);
    if (change.kind === 'removed') {
      const g = gone.get(k);
      return g ? { ...change, tool: g.tool, toolFate: g.fate } : change;
    }
    const tool = current.get(k);
    if (!tool) return change;
    return { ...change, tool, toolFate: fresh.has(tool.key) ? 'added' : 'updated' };
  });
}

/** The threshold `svc diff --fail-on` checks. */
export type FailOn = 'breaking' | 'warning' | 'any';

/** Warnings that mean an exposed (enabled) tool is broken by this import. */
export const ENABLED_TOOL_HITS: ReadonlySet<ReportWarning['id']> = new Set([
  'enabled-tool-endpoint-removed',
  'enabled-tool-breaking-change',
]);

/**
 * breaking: a breaking change (or removal) hits an endpoint an enabled tool calls; disabled
 * tools are invisible to users, so upstream changes to them do not fail CI. warning: that, a
 * warning-level change to such an endpoint, or any report warning. any: anything changed at all.
 * Levels are the tuned ones (config.yaml `diff.rules`): the diff applies them before this runs.
 */
export function reportHits(report: ImportReport, failOn: FailOn): boolean {
  const hitsEnabled = report.warnings.some((w) => ENABLED_TOOL_HITS.has(w.id));
  if (failOn === 'breaking') return hitsEnabled;
  if (failOn === 'warning') {
    // A change at warning level (by default or as config.yaml's diff.rules tunes it) to an enabled tool's endpoint.
    const warned = report.endpoints.some(
      (e) => e.tool?.enabled === true && e.changes.some((c) => c.level === 'warning'),
    );
    return hitsEnabled || warned || report.counts.warnings > 0;
  }
  const e = report.counts.endpoints;
  const w = report.counts.webhooks;
  const c = report.counts.content;
  const webhooks = w ? w.added + w.removed + w.changed : 0;
  return (
    report.changed ||
    e.added + e.removed + e.changed + webhooks > 0 ||
    c.added + c.updated + c.removed + c.skipped > 0
  );
}
