/**
 * The Markdown the action writes (pull-request comment, job summary): pure functions of the results.
 * One summary line first, then one section per folder; long lists fold into <details> so a large API
 * stays readable.
 */
import type { EndpointChangeView } from './engine.js';
import { type FolderResult, hasSomethingToReport } from './folder-result.js';
import type { ToolChange } from './tool-changes.js';

export const NOTHING_TO_REPORT = 'Nothing to report';
const FOLD_AFTER = 15;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function fold(title: string, lines: string[]): string[] {
  if (lines.length <= FOLD_AFTER) return [`**${title}**`, '', ...lines, ''];
  return [`<details><summary><b>${title}</b></summary>`, '', ...lines, '', '</details>', ''];
}

const TOOL_WORDS: Record<ToolChange['kind'], string> = {
  'tool-added': 'added',
  'tool-removed': 'removed',
  'tool-enabled': 'enabled',
  'tool-disabled': 'disabled',
  'tool-renamed': 'renamed',
  'tool-description-changed': 'description changed',
  'tool-became-stale': 'stale (endpoint gone)',
};

function levelMark(level: 'breaking' | 'warning' | 'info'): string {
  return level === 'breaking' ? '🔴 breaking' : level === 'warning' ? '🟠 warning' : '';
}

function toolTable(changes: readonly ToolChange[]): string[] {
  const rows = changes.map(
    (c) =>
      `| ${cell(TOOL_WORDS[c.kind])}${c.detail ? ` (${cell(c.detail)})` : ''} | \`${cell(c.name)}\` | ${
        c.endpoint ? `\`${cell(c.endpoint)}\`` : ''
      } | ${c.enabled ? 'yes' : 'no'} | ${levelMark(c.level)} |`,
  );
  return ['| Change | Tool | Endpoint | Enabled | Level |', '|---|---|---|---|---|', ...rows];
}

function endpointLines(changes: readonly EndpointChangeView[], enabled: ReadonlySet<string>): string[] {
  const order = { removed: 0, changed: 1, added: 2 } as const;
  return [...changes]
    .sort(
      (a, b) =>
        Number(b.breaking) - Number(a.breaking) ||
        order[a.kind] - order[b.kind] ||
        a.endpoint.localeCompare(b.endpoint),
    )
    .map((c) => {
      const hit = c.breaking && enabled.has(c.endpoint) ? ' — hits an enabled tool' : '';
      const head = `- ${c.breaking ? '🔴 ' : ''}\`${c.endpoint}\` ${c.kind}${hit}`;
      return [head, ...c.details.map((d) => `  - ${d}`)].join('\n');
    });
}

export function summaryLine(results: readonly FolderResult[], noun = 'touched'): string {
  const reported = results.filter(hasSomethingToReport);
  if (reported.length === 0) {
    return results.length === 0
      ? `${NOTHING_TO_REPORT}: no server folder ${noun}.`
      : `${NOTHING_TO_REPORT}: ${plural(results.length, 'server folder')} ${noun}, no tool or endpoint changes.`;
  }
  const breaking = results.reduce((n, r) => n + r.breaking, 0);
  const warnings = results.reduce((n, r) => n + r.warnings, 0);
  const errors = results.filter((r) => r.error).length;
  const parts = [`${plural(reported.length, 'server folder')} with changes`];
  parts.push(
    breaking > 0
      ? `**${plural(breaking, 'breaking change')} hitting enabled tools**`
      : 'no breaking change hits an enabled tool',
  );
  if (warnings > 0) parts.push(plural(warnings, 'warning'));
  if (errors > 0) parts.push(`**${plural(errors, 'failed import')}**`);
  return `${parts.join(' · ')}.`;
}

export interface RenderOptions {
  title: string;
  /** e.g. "pull request" → "What a re-import from the source would bring". */
  reimportHeading: string;
  footer?: string;
  /** Enabled endpoints per folder, to mark committed changes that hit a tool. */
  enabled?: ReadonlyMap<string, ReadonlySet<string>>;
  noun?: string;
}

export function renderResults(results: readonly FolderResult[], opts: RenderOptions): string {
  const out: string[] = [`### ${opts.title}`, '', summaryLine(results, opts.noun), ''];
  for (const r of results) {
    const label = r.name ? `\`${r.folder}\` — ${r.name}` : `\`${r.folder}\``;
    const badge = r.breaking > 0 ? ` · 🔴 ${plural(r.breaking, 'breaking change')}` : '';
    out.push(`#### ${label}${badge}`, '');
    if (!hasSomethingToReport(r)) {
      out.push('No tool or endpoint changes.', '');
      continue;
    }
    if (r.removed) out.push('The pull request removes this server folder.', '');
    if (r.error) out.push(`> [!CAUTION]\n> ${r.error.replace(/\n/g, '\n> ')}`, '');
    if (r.toolChanges.length > 0)
      out.push(...fold(`Tools (${r.toolChanges.length})`, toolTable(r.toolChanges)));
    if (r.endpointChanges.length > 0) {
      const enabled = opts.enabled?.get(r.folder) ?? new Set<string>();
      out.push(...fold(`Endpoints (${r.endpointChanges.length})`, endpointLines(r.endpointChanges, enabled)));
    }
    if (r.reimport) {
      if (r.reimport.status === 'failed') {
        out.push(
          `**${opts.reimportHeading}:** the import failed: ${r.reimport.error ?? r.reimport.summary}`,
          '',
        );
      } else if (!r.reimport.changed) {
        out.push(`**${opts.reimportHeading}:** nothing; the folder is up to date with its source.`, '');
      } else {
        out.push(
          `<details><summary><b>${opts.reimportHeading}:</b> ${r.reimport.summary}</summary>`,
          '',
          r.reimport.markdown.trim(),
          '',
          '</details>',
          '',
        );
      }
    }
  }
  if (opts.footer) out.push(`<sub>${opts.footer}</sub>`, '');
  return out.join('\n');
}
