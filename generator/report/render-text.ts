import type { ImportReport } from '../../schemas/types.js';
import { NO_RECORD_REASON } from '../merge/unrecorded-base.js';
import { shownPair } from './value-pair.js';

const MAX_LINES = 200;

const MAX_VALUE = 80;

/** Both values, cut around where they differ. */
function pair(a: unknown, b: unknown): [string, string] {
  const [x, y] = shownPair(a, b, MAX_VALUE);
  return [x ?? '(none)', y ?? '(none)'];
}

function short(v: unknown): string {
  if (v === undefined) return '(none)';
  const text = typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** Edits a re-import undid or kept against an upstream change: enabled tools' first. */
function editLines(report: ImportReport): string[] {
  const out: string[] = [];
  const all = [
    ...report.tools.customizationsReset.map((r) => ({ r, reset: true })),
    ...(report.tools.customizationsKept ?? []).map((r) => ({ r, reset: false })),
  ].sort((a, b) => Number(b.r.enabled === true) - Number(a.r.enabled === true));
  for (const { r, reset } of all) {
    for (const c of r.changes) {
      const who = `${r.enabled ? 'enabled ' : ''}tool ${r.name ?? r.key} (Tools/${r.key}.yaml) ${c.field}`;
      const [before, after] = pair(c.previous, c.current);
      out.push(
        reset
          ? `  reset ${who}: yours ${before} → now ${after} (${c.reason})`
          : c.reason === NO_RECORD_REASON
            ? `  kept  ${who}: ${c.reason}; svc now writes ${short(c.current)}`
            : `  kept  ${who}: yours stays; upstream ${before} → ${after}`,
      );
    }
  }
  return out;
}

/** The report for a terminal: the summary, warnings, edits undone or kept, then one line per endpoint (capped). */
export function renderReportText(report: ImportReport): string {
  const out = [report.summary];
  for (const w of report.warnings) out.push(`  warning ${w.id}: ${w.text}`);
  out.push(...editLines(report));
  let shown = 0;
  for (const e of report.endpoints) {
    if (shown >= MAX_LINES) break;
    shown++;
    const sign = { added: '+', removed: '-', changed: '~' }[e.kind];
    out.push(`  ${sign} ${e.key}${e.breaking ? '  [breaking]' : ''}`);
    if (e.kind === 'changed')
      for (const c of e.changes) out.push(`      ${c.level === 'breaking' ? '!' : ' '} ${c.id}: ${c.text}`);
  }
  if (report.endpoints.length > shown)
    out.push(`  … ${report.endpoints.length - shown} more endpoints (--format json)`);
  for (const c of report.content)
    out.push(`  content ${c.action}: ${c.file}${c.reason ? ` (${c.reason})` : ''}`);
  return `${out.join('\n')}\n`;
}
