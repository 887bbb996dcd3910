/**
 * The report as a pull-request comment. Leads with one summary line, then everything that
 * touches an **enabled** tool (what agents see), never folded; then the rest, which stays
 * readable for a 1,000-endpoint API: endpoints grouped (tag or path prefix) with counts, each
 * group folded in <details> when the report is long, and a hard cap on listed lines (GitHub
 * comments end at 65,536 characters; the JSON report always has everything).
 */
import { NO_RECORD_REASON } from '../merge/unrecorded-base.js';
import { describeCost } from '../../folder/tools-list-cost.js';
import type {
  ApiChange,
  CustomizationReset,
  EndpointChange,
  ImportReport,
  ReportWarning,
} from '../../schemas/types.js';
import { shownPair } from './value-pair.js';

const FOLD_OVER = 30;
/** Characters of endpoint lines, and items per list: together they keep a comment under 60,000. */
const MAX_ENDPOINT_CHARS = 28_000;
const MAX_LIST_ITEMS = 40;
const MAX_WARNINGS = 50;
const MAX_CHANGES_PER_ENDPOINT = 12;
/** Characters of the enabled-tools section: listed in full up to this, never folded. */
const MAX_ENABLED_CHARS = 20_000;
const MAX_VALUE_CHARS = 120;

function code(s: string): string {
  return `\`${s.replace(/`/g, "'")}\``;
}

/** Text from the document (descriptions, names) must not open HTML or break a table. */
function safe(s: string): string {
  return s
    .replace(/[<>]/g, (c) => (c === '<' ? '&lt;' : '&gt;'))
    .replace(/\|/g, '\\|')
    .replace(/\r?\n/g, ' ');
}

function changeLine(c: ApiChange): string {
  return `  - ${c.level === 'breaking' ? '🔴' : '⚪'} ${code(c.id)}: ${safe(c.text)}`;
}

/** Which tool of the folder calls the endpoint, and what the import did to it. */
function toolNote(e: EndpointChange): string {
  if (!e.tool) return '';
  const state = e.tool.enabled ? '**enabled**' : 'disabled';
  const fate = e.toolFate === 'removed' ? ', removed' : e.toolFate === 'kept-stale' ? ', kept as stale' : '';
  return ` · tool ${code(e.tool.name)} (${state}${fate})`;
}

function endpointLine(e: EndpointChange): string[] {
  const label = { added: 'Added', removed: 'Removed', changed: 'Changed' }[e.kind];
  const op = e.operationId ? ` (${safe(e.operationId)})` : '';
  const head = `- **${label}** ${code(e.key)}${op}${e.breaking ? ' — **breaking**' : ''}${toolNote(e)}`;
  if (e.kind !== 'changed') return [head];
  const shown = e.changes.slice(0, MAX_CHANGES_PER_ENDPOINT).map(changeLine);
  const more = e.changes.length - shown.length;
  return [head, ...shown, ...(more > 0 ? [`  - … ${more} more`] : [])];
}

function groupCounts(list: EndpointChange[]): string {
  const n = (k: EndpointChange['kind']) => list.filter((e) => e.kind === k).length;
  const parts = [`${n('added')} added`, `${n('removed')} removed`, `${n('changed')} changed`].filter(
    (p) => !p.startsWith('0 '),
  );
  const breaking = list.filter((e) => e.breaking).length;
  return `${parts.join(', ')}${breaking ? `, **${breaking} breaking**` : ''}`;
}

/** Rule ids that change only documentation (oasdiff's doc-only class). */
const DOC_ONLY_ID = /(?:summary|description|example|examples|title)-changed$/;

function isDocOnly(e: EndpointChange): boolean {
  return (
    e.kind === 'changed' &&
    !e.breaking &&
    e.changes.length > 0 &&
    e.changes.every((c) => DOC_ONLY_ID.test(c.id))
  );
}

/** Documentation-only endpoint changes, folded into one line (as oasdiff does): the JSON has each. */
function docOnlyLine(list: readonly EndpointChange[]): string[] {
  if (list.length === 0) return [];
  const names = list.slice(0, 8).map((e) => code(e.key));
  const more = list.length > names.length ? ` and ${list.length - names.length} more` : '';
  return [
    `- 📝 ${list.length} endpoint${list.length === 1 ? '' : 's'} with documentation-only changes: ${names.join(', ')}${more}`,
    '',
  ];
}

function endpointSection(report: ImportReport): string[] {
  if (report.endpoints.length === 0) return [];
  const docOnly = report.endpoints.filter(isDocOnly);
  const groups = new Map<string, EndpointChange[]>();
  for (const e of report.endpoints) {
    if (isDocOnly(e)) continue;
    const list = groups.get(e.group) ?? [];
    list.push(e);
    groups.set(e.group, list);
  }
  // Groups with breaking changes first, then by name, so what needs attention is on top.
  const names = [...groups.keys()].sort((a, b) => {
    const ba = groups.get(a)!.some((e) => e.breaking) ? 0 : 1;
    const bb = groups.get(b)!.some((e) => e.breaking) ? 0 : 1;
    return ba - bb || (a < b ? -1 : a > b ? 1 : 0);
  });
  const fold = report.endpoints.length > FOLD_OVER;
  const out = ['### Endpoints', ''];
  // Every group gets its share of the budget, so a big group cannot hide the others.
  const share = Math.max(600, Math.floor(MAX_ENDPOINT_CHARS / names.length));
  let hidden = 0;
  let total = 0;
  for (const name of names) {
    const list = groups.get(name)!;
    const lines: string[] = [];
    let budget = share;
    for (const e of list) {
      const l = endpointLine(e);
      const size = l.reduce((n, line) => n + line.length + 1, 0);
      if ((lines.length > 0 && size > budget) || total + size > MAX_ENDPOINT_CHARS) {
        hidden++;
        continue;
      }
      budget -= size;
      total += size;
      lines.push(...l);
    }
    const title = `${safe(name)} — ${groupCounts(list)}`;
    if (lines.length === 0) {
      out.push(`- ${title}`);
      continue;
    }
    if (fold) out.push(`<details><summary>${title}</summary>`, '', ...lines, '', '</details>', '');
    else out.push(`#### ${title}`, '', ...lines, '');
  }
  out.push(...docOnlyLine(docOnly));
  if (hidden > 0)
    out.push(`_… ${hidden} more endpoints are in the JSON report (\`svc diff --format json\`)._`, '');
  return out;
}

/** A long list, cut: the JSON report always has every item. */
function capped(lines: string[], max: number): string[] {
  if (lines.length <= max) return lines;
  return [...lines.slice(0, max), `- … and ${lines.length - max} more (\`--format json\` lists all)`];
}

/** A value from a tool file, short and on one line. */
function value(v: unknown): string {
  if (v === undefined) return '_(none)_';
  const text = typeof v === 'string' ? v : JSON.stringify(v);
  return code(safe(text.length > MAX_VALUE_CHARS ? `${text.slice(0, MAX_VALUE_CHARS - 1)}…` : text));
}

/** Two values of one field, each cut around where they differ (not at a prefix they share). */
function values(a: unknown, b: unknown): [string, string] {
  const [x, y] = shownPair(a, b, MAX_VALUE_CHARS, true);
  return [x === undefined ? '_(none)_' : code(safe(x)), y === undefined ? '_(none)_' : code(safe(y))];
}

function fieldLines(r: CustomizationReset, action: 'reset' | 'kept'): string[] {
  return r.changes.map((c) => {
    const [before, after] = values(c.previous, c.current);
    return action === 'reset'
      ? `  - ${code(c.field)}: yours ${before} → now ${after} — ${safe(c.reason)}`
      : c.reason === NO_RECORD_REASON
        ? `  - ${code(c.field)}: ${safe(c.reason)} (svc now writes ${value(c.current)})`
        : `  - ${code(c.field)}: the API's ${before} → ${after}; yours is kept`;
  });
}

/** What a kept-edits entry says before its fields: why the user's values needed keeping. */
function keptHeading(r: CustomizationReset): string {
  return r.changes.every((c) => c.reason === NO_RECORD_REASON)
    ? 'svc has no record of what it generated for these fields; yours stay:'
    : 'the API changed fields you edited; yours stay:';
}

const ENABLED_WARNINGS: ReadonlySet<ReportWarning['id']> = new Set([
  'enabled-tool-endpoint-removed',
  'enabled-tool-renamed',
  'enabled-tool-breaking-change',
  'enabled-tool-scopes-widened',
]);

/** Warnings the enabled-tools section already shows. */
function isEnabledWarning(w: ReportWarning, enabledKeys: ReadonlySet<string>): boolean {
  return ENABLED_WARNINGS.has(w.id) || (w.tool !== undefined && enabledKeys.has(w.tool));
}

function enabledKeysOf(report: ImportReport): Set<string> {
  const keys = new Set<string>();
  for (const r of [...report.tools.customizationsReset, ...(report.tools.customizationsKept ?? [])])
    if (r.enabled) keys.add(r.key);
  for (const t of report.tools.stale) if (t.enabled) keys.add(t.key);
  return keys;
}

/** Everything that touches an enabled tool, first and unfolded: these are what agents call. */
function enabledSection(report: ImportReport): string[] {
  const enabledKeys = enabledKeysOf(report);
  const blocks: string[][] = [];
  // A name agents call changed, or an endpoint they call is gone: said first of all.
  for (const w of report.warnings) {
    if (w.id === 'enabled-tool-renamed') blocks.push([`- 🔴 **Renamed** ${safe(w.text)}`]);
  }
  for (const t of report.tools.stale) {
    if (!t.enabled) continue;
    blocks.push([
      `- 🔴 **Endpoint gone** ${code(t.name)} (${code(t.endpoint ?? '')}): kept under its name and marked stale; calls to it now fail. Disable or delete it, or point it at another endpoint.`,
    ]);
  }
  for (const w of report.warnings) {
    if (w.id === 'enabled-tool-breaking-change') blocks.push([`- 🔴 **Breaking** ${safe(w.text)}`]);
  }
  for (const w of report.warnings) {
    if (w.id === 'enabled-tool-scopes-widened') blocks.push([`- 🟠 **Scopes widened** ${safe(w.text)}`]);
  }
  for (const r of report.tools.customizationsReset) {
    if (!r.enabled) continue;
    blocks.push([
      `- 🟠 **Edits reset** ${code(r.name ?? r.key)} (${code(r.endpoint)}, file ${code(`Tools/${r.key}.yaml`)}):`,
      ...fieldLines(r, 'reset'),
    ]);
  }
  for (const r of report.tools.customizationsKept ?? []) {
    if (!r.enabled) continue;
    blocks.push([
      `- ⚪ **Edits kept** ${code(r.name ?? r.key)} (${code(r.endpoint)}): ${keptHeading(r)}`,
      ...fieldLines(r, 'kept'),
    ]);
  }
  const changed = report.endpoints.filter(
    (e) => e.kind === 'changed' && !e.breaking && e.tool?.enabled && !enabledKeys.has(e.tool.key),
  );
  for (const e of changed) blocks.push(endpointLine(e));
  if (blocks.length === 0) return [];
  const out = [`### Enabled tools (${blocks.length})`, ''];
  let total = 0;
  let hidden = 0;
  for (const block of blocks) {
    const size = block.reduce((n, line) => n + line.length + 1, 0);
    if (total + size > MAX_ENABLED_CHARS) {
      hidden++;
      continue;
    }
    total += size;
    out.push(...block);
  }
  if (hidden > 0) out.push(`- … and ${hidden} more (\`svc diff --format json\` lists all)`);
  out.push('');
  return out;
}

function warningSection(report: ImportReport): string[] {
  const enabledKeys = enabledKeysOf(report);
  const rest = report.warnings.filter((w) => !isEnabledWarning(w, enabledKeys));
  if (rest.length === 0) return [];
  const lines = capped(
    rest.map((w) => `- ${code(w.id)}: ${safe(w.text)}`),
    MAX_WARNINGS,
  );
  const out = [`### ⚠️ Warnings (${rest.length})`, ''];
  if (lines.length > FOLD_OVER)
    out.push('<details><summary>Show all</summary>', '', ...lines, '', '</details>', '');
  else out.push(...lines, '');
  return out;
}

function toolSection(report: ImportReport): string[] {
  const t = report.tools;
  const out: string[] = [];
  const list = (title: string, items: string[]) => {
    if (items.length === 0) return;
    const fold = items.length > FOLD_OVER;
    out.push(
      fold ? `<details><summary>${title} (${items.length})</summary>` : `**${title}** (${items.length})`,
      '',
    );
    out.push(...capped(items, MAX_LIST_ITEMS), '');
    if (fold) out.push('</details>', '');
  };
  // Enabled tools are listed above, unfolded; these are the disabled tools' details.
  list(
    'Edits reset on disabled tools',
    t.customizationsReset
      .filter((r) => !r.enabled)
      .map((r) => [`- ${code(r.key)} (${code(r.endpoint)}):`, ...fieldLines(r, 'reset')].join('\n')),
  );
  list(
    'Edits kept on disabled tools',
    (t.customizationsKept ?? [])
      .filter((r) => !r.enabled)
      .map((r) => [`- ${code(r.key)} (${code(r.endpoint)}):`, ...fieldLines(r, 'kept')].join('\n')),
  );
  list(
    'Kept and marked stale (disabled)',
    t.stale.filter((r) => !r.enabled).map((r) => `- ${code(r.key)} ${code(r.endpoint ?? '')}`),
  );
  list(
    'Removed (never enabled or customized)',
    t.removed.map((r) => `- ${code(r.key)} ${code(r.endpoint ?? '')}`),
  );
  list(
    'Added (disabled)',
    t.added.map((r) => `- ${code(r.name)} ${code(r.endpoint ?? '')}`),
  );
  return out.length > 0 ? ['### Tools', '', ...out] : [];
}

function contentSection(report: ImportReport): string[] {
  if (report.content.length === 0) return [];
  const lines = report.content.map(
    (c) => `- **${c.action}** ${code(c.file)}${c.reason ? ` — ${safe(c.reason)}` : ''}`,
  );
  return ['### Content', '', ...capped(lines, MAX_WARNINGS), ''];
}

/** What tools/list costs a client, when the import changed it (a tool gone stale, a mode that flips). */
function toolsListLine(report: ImportReport): string[] {
  const { before, after } = report.toolsList ?? {};
  if (!before || !after || (before.mode === after.mode && before.bytes === after.bytes)) return [];
  return [`**tools/list:** ${describeCost(before)} → ${describeCost(after)}`, ''];
}

function webhooksRow(report: ImportReport): string[] {
  const w = report.counts.webhooks;
  return w ? [`| Webhooks | ${w.added} | ${w.removed} | ${w.changed} | ${w.breaking} | |`] : [];
}

export function renderReportMarkdown(report: ImportReport): string {
  const e = report.counts.endpoints;
  const t = report.counts.tools;
  const c = report.counts.content;
  const out = [
    `**${safe(report.summary)}**`,
    '',
    '| | added | removed | changed | breaking | total |',
    '|---|---:|---:|---:|---:|---:|',
    `| Endpoints | ${e.added} | ${e.removed} | ${e.changed} | ${e.breaking} | ${e.after} |`,
    ...webhooksRow(report),
    `| Tools | ${t.added} | ${t.removed} | ${t.customizationsReset} reset, ${t.stale} stale | | ${t.total} (${t.enabled} enabled) |`,
  ];
  if (c.added + c.updated + c.skipped + c.removed > 0) {
    out.push(`| Content | ${c.added} | ${c.removed} | ${c.updated} updated, ${c.skipped} skipped | | |`);
  }
  out.push('', ...toolsListLine(report));
  out.push(
    ...enabledSection(report),
    ...warningSection(report),
    ...endpointSection(report),
    ...toolSection(report),
    ...contentSection(report),
  );
  return `${out.join('\n').trimEnd()}\n`;
}
