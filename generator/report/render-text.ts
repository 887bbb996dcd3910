import type { ImportReport } from '../../schemas/types.js';

const MAX_LINES = 200;

/** The report for a terminal: the summary, warnings, then one line per endpoint (capped). */
export function renderReportText(report: ImportReport): string {
  const out = [report.summary];
  for (const w of report.warnings) out.push(`  warning ${w.id}: ${w.text}`);
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
