/**
 * The Markdown the action writes (pull-request comment, job summary): pure functions of the results.
 * One summary line first, then one section per folder. Each section leads with what hits enabled tools
 * (never folded), then the other breaking changes, then the rest; documentation-only changes fold into
 * one line, as oasdiff does. With a budget (the comment), every folder gets its share of it, so a big
 * folder cannot push another out of the comment, and a cut section links the full report.
 */
import { describeCost } from '../../folder/tools-list-cost.js';
import type { EndpointChangeView } from './engine.js';
import { type FolderResult, hasSomethingToReport } from './folder-result.js';
import type { ToolChange } from './tool-changes.js';

export const NOTHING_TO_REPORT = 'Nothing to report';
const FOLD_AFTER = 15;
/** Names listed on a documentation-only line before "and N more". */
const MAX_DOC_NAMES = 8;

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function code(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

const TOOL_WORDS: Record<ToolChange['kind'], string> = {
  'tool-added': 'added',
  'tool-removed': 'removed',
  'tool-enabled': 'enabled',
  'tool-disabled': 'disabled',
  'tool-renamed': 'renamed',
  'tool-description-changed': 'description changed',
  'tool-input-changed': 'input changed',
  'tool-became-stale': 'stale (endpoint gone)',
};

const LEVEL_ORDER = { breaking: 0, warning: 1, info: 2 } as const;
const KIND_ORDER = { removed: 0, changed: 1, added: 2 } as const;

function levelMark(level: 'breaking' | 'warning' | 'info'): string {
  return level === 'breaking' ? '🔴 breaking' : level === 'warning' ? '🟠 warning' : '';
}

/** Rule ids that change only documentation (oasdiff's doc-only class): folded into one line. */
const DOC_ONLY_ID = /(?:summary|description|example|examples|title)-changed$/;

export function isDocOnly(c: EndpointChangeView): boolean {
  return (
    c.kind === 'changed' &&
    !c.breaking &&
    (c.ids?.length ?? 0) > 0 &&
    c.ids!.every((id) => DOC_ONLY_ID.test(id))
  );
}

function byLevel(a: ToolChange, b: ToolChange): number {
  return (
    LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] ||
    Number(b.enabled) - Number(a.enabled) ||
    a.name.localeCompare(b.name) ||
    a.kind.localeCompare(b.kind)
  );
}

function byImportance(a: EndpointChangeView, b: EndpointChangeView): number {
  return (
    Number(b.breaking) - Number(a.breaking) ||
    KIND_ORDER[a.kind] - KIND_ORDER[b.kind] ||
    a.endpoint.localeCompare(b.endpoint)
  );
}

function toolRow(c: ToolChange): string {
  return `| ${cell(TOOL_WORDS[c.kind])}${c.detail ? ` (${cell(c.detail)})` : ''} | ${code(cell(c.name))} | ${
    c.endpoint ? code(cell(c.endpoint)) : ''
  } | ${c.enabled ? 'yes' : 'no'} | ${levelMark(c.level)} |`;
}

const TOOL_TABLE_HEAD = ['| Change | Tool | Endpoint | Enabled | Level |', '|---|---|---|---|---|'];

/** A tool change that needs a reviewer's eye, on its own line. */
function toolHitLine(c: ToolChange): string {
  const mark = c.level === 'breaking' ? '🔴' : '🟠';
  const at = c.endpoint ? ` (${code(c.endpoint)})` : '';
  return `- ${mark} tool ${code(c.name)}${at} ${TOOL_WORDS[c.kind]}${c.detail ? `: ${cell(c.detail)}` : ''}${
    c.enabled || c.kind === 'tool-disabled' || c.kind === 'tool-removed' ? '' : ' (disabled now)'
  }`;
}

function endpointLine(c: EndpointChangeView, enabled: ReadonlyMap<string, string>): string {
  const tool = enabled.get(c.endpoint);
  const hit = c.breaking && tool !== undefined ? ` — hits an enabled tool (${code(tool)})` : '';
  const head = `- ${c.breaking ? '🔴 ' : ''}${code(c.endpoint)} ${c.kind}${hit}`;
  return [head, ...c.details.map((d) => `  - ${d}`)].join('\n');
}

/** One line for many documentation-only changes, naming a few (enabled tools first). */
function docLine(what: string, names: readonly string[]): string {
  const shown = names.slice(0, MAX_DOC_NAMES).map(code).join(', ');
  const more = names.length > MAX_DOC_NAMES ? ` and ${names.length - MAX_DOC_NAMES} more` : '';
  return `- 📝 ${what} (documentation only): ${shown}${more}`;
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
  /** Enabled endpoints per folder ("METHOD /path" → tool name), to mark committed changes that hit a tool. */
  enabled?: ReadonlyMap<string, ReadonlyMap<string, string>>;
  noun?: string;
  /**
   * Characters the whole text may take (a pull-request comment): each folder gets its share, and a
   * section cut to fit ends with `fullReport`. Absent: everything is rendered (the job summary).
   */
  maxChars?: number;
  /** Where the full report is, as Markdown ("the job summary of [this run](…)"). */
  fullReport?: string;
}

/**
 * A piece of a folder's section: an opening (a heading or `<details><summary>`), items that can be cut
 * one by one, and a closing. Parts come in the order a reviewer needs them.
 */
interface Part {
  open: string[];
  items: string[];
  close: string[];
  /** A short summary (documentation-only changes in one line): always shown, even when the rest is cut. */
  summary?: boolean;
}

interface Section {
  head: string[];
  parts: Part[];
}

function foldable(title: string, items: string[], foldAfter = FOLD_AFTER, table: string[] = []): Part {
  if (items.length <= foldAfter) return { open: [`**${title}**`, '', ...table], items, close: [''] };
  return {
    open: [`<details><summary><b>${title}</b></summary>`, '', ...table],
    items,
    close: ['', '</details>', ''],
  };
}

function endpointCounts(changes: readonly EndpointChangeView[]): string {
  const n = (k: EndpointChangeView['kind']) => changes.filter((c) => c.kind === k).length;
  const breaking = changes.filter((c) => c.breaking).length;
  return `${n('added')} added, ${n('removed')} removed, ${n('changed')} changed${breaking ? ` (${breaking} breaking)` : ''}`;
}

/** What the change costs a model's context: the discovery mode and the size of tools/list, before → after. */
function toolsListLine(t: NonNullable<FolderResult['toolsList']>): string {
  const after = describeCost(t.after);
  return t.before ? `**tools/list:** ${describeCost(t.before)} → ${after}` : `**tools/list:** ${after}`;
}

function folderSection(r: FolderResult, opts: RenderOptions): Section {
  const label = r.name ? `${code(r.folder)} — ${r.name}` : code(r.folder);
  const badges = [
    ...(r.breaking > 0 ? [`🔴 ${plural(r.breaking, 'breaking change')} hitting enabled tools`] : []),
    ...(r.warnings > 0 ? [`🟠 ${plural(r.warnings, 'warning')}`] : []),
  ];
  const head = [`#### ${label}${badges.map((b) => ` · ${b}`).join('')}`, ''];
  const parts: Part[] = [];
  if (!hasSomethingToReport(r)) {
    head.push('No tool or endpoint changes.', '');
    return { head, parts };
  }
  // Counts first, in svc diff's terms (its summary line for the re-import), so the two agree.
  const counts: string[] = [];
  if (r.endpointChanges.length > 0) counts.push(`endpoints: ${endpointCounts(r.endpointChanges)}`);
  if (r.toolChanges.length > 0) counts.push(plural(r.toolChanges.length, 'tool change'));
  if (counts.length > 0) head.push(`Committed — ${counts.join('; ')}.`, '');
  if (r.reimport && r.reimport.status !== 'failed' && r.reimport.changed)
    head.push(`${opts.reimportHeading} (as \`svc diff\` reports it): ${r.reimport.summary}`, '');
  if (r.removed) head.push('The pull request removes this server folder.', '');
  if (r.error) head.push(`> [!CAUTION]\n> ${r.error.replace(/\n/g, '\n> ')}`, '');

  const enabled = opts.enabled?.get(r.folder) ?? new Map<string, string>();
  // 1. What hits enabled tools (and any other breaking or warning-level tool change): never folded.
  const toolHits = r.toolChanges.filter((c) => c.level !== 'info').sort(byLevel);
  const endpointHits = r.endpointChanges
    .filter((c) => c.breaking && enabled.has(c.endpoint))
    .sort(byImportance);
  const reimportHits = r.reimport?.status === 'complete' ? (r.reimport.hits ?? []) : [];
  const hits = [
    ...toolHits.filter((c) => c.level === 'breaking').map(toolHitLine),
    ...endpointHits.map((c) => endpointLine(c, enabled)),
    ...reimportHits.map((text) => `- 🔴 re-import: ${cell(text)}`),
    ...toolHits.filter((c) => c.level !== 'breaking').map(toolHitLine),
  ];
  if (hits.length > 0)
    parts.push({
      open: [`**Needs review: what hits enabled tools (${hits.length})**`, ''],
      items: hits,
      close: [''],
    });

  // What the change costs a model's context, right after what needs review.
  if (r.toolsList) parts.push({ open: [], items: [toolsListLine(r.toolsList)], close: [''], summary: true });

  // 2. Breaking endpoint changes no enabled tool calls.
  const otherBreaking = r.endpointChanges
    .filter((c) => c.breaking && !enabled.has(c.endpoint))
    .sort(byImportance);
  if (otherBreaking.length > 0)
    parts.push(
      foldable(
        `Breaking changes to endpoints no enabled tool calls (${otherBreaking.length})`,
        otherBreaking.map((c) => endpointLine(c, enabled)),
      ),
    );

  // 3. The other tool changes, by level, enabled first; re-described tools in one line.
  const rest = r.toolChanges.filter((c) => c.level === 'info');
  const described = rest.filter((c) => c.kind === 'tool-description-changed');
  const others = rest.filter((c) => c.kind !== 'tool-description-changed').sort(byLevel);
  if (others.length > 0 || described.length > 0) {
    const items = others.map(toolRow);
    const docs =
      described.length > 0
        ? [
            docLine(
              `${plural(described.length, 'tool')} re-described`,
              described.sort(byLevel).map((c) => (c.enabled ? `${c.name} (enabled)` : c.name)),
            ),
          ]
        : [];
    const title = `Other tool changes (${rest.length})`;
    if (items.length === 0)
      parts.push({ open: [`**${title}**`, ''], items: docs, close: [''], summary: true });
    else {
      const part = foldable(title, items, FOLD_AFTER, TOOL_TABLE_HEAD);
      parts.push(part);
      if (docs.length > 0) parts.push({ open: [], items: docs, close: [''], summary: true });
    }
  }

  // 4. The other endpoint changes; documentation-only ones in one line.
  const plain = r.endpointChanges.filter((c) => !c.breaking);
  const docOnly = plain.filter(isDocOnly);
  const listed = plain.filter((c) => !isDocOnly(c)).sort(byImportance);
  if (listed.length > 0 || docOnly.length > 0) {
    const docs =
      docOnly.length > 0
        ? [docLine(`${plural(docOnly.length, 'endpoint')} changed`, docOnly.map((c) => c.endpoint).sort())]
        : [];
    const part = foldable(
      `Other endpoint changes (${plain.length})`,
      listed.map((c) => endpointLine(c, enabled)),
    );
    if (listed.length === 0)
      parts.push({
        open: [`**Other endpoint changes (${plain.length})**`, ''],
        items: docs,
        close: [''],
        summary: true,
      });
    else {
      parts.push(part);
      if (docs.length > 0) parts.push({ open: [], items: docs, close: [''], summary: true });
    }
  }

  // 5. What a re-import would bring, folded.
  if (r.reimport) {
    if (r.reimport.status === 'failed') {
      head.push(
        `**${opts.reimportHeading}:** the import failed: ${r.reimport.error ?? r.reimport.summary}`,
        '',
      );
    } else if (!r.reimport.changed) {
      head.push(`**${opts.reimportHeading}:** nothing; the folder is up to date with its source.`, '');
    } else {
      parts.push({
        open: [`<details><summary><b>${opts.reimportHeading}:</b> ${r.reimport.summary}</summary>`, ''],
        items: r.reimport.markdown.trim().split('\n'),
        close: ['', '</details>', ''],
      });
    }
  }
  return { head, parts };
}

function size(lines: readonly string[]): number {
  return lines.reduce((n, l) => n + l.length + 1, 0);
}

function sectionLines(s: Section): string[] {
  return [...s.head, ...s.parts.flatMap((p) => [...p.open, ...p.items, ...p.close])];
}

const count = (text: string, tag: RegExp) => (text.match(tag) ?? []).length;

/**
 * The section within `budget` characters: the one-line summaries always (their room is set aside first),
 * then whole parts while they fit, then as many items of the next as fit; the note says how much was cut.
 */
function fitSection(s: Section, budget: number, fullReport: string): string[] {
  const all = sectionLines(s);
  if (size(all) <= budget) return all;
  const note = `_… cut to fit the comment: ${fullReport}_`;
  const whole = (p: Part) => [...p.open, ...p.items, ...p.close];
  let left =
    budget -
    size(s.head) -
    size([note, '']) -
    s.parts.filter((p) => p.summary).reduce((n, p) => n + size(whole(p)), 0);
  let cut = 0;
  const shown = s.parts.map((part): string[] => {
    if (part.summary) return whole(part);
    if (cut > 0) {
      cut += part.items.length;
      return [];
    }
    if (size(whole(part)) <= left) {
      left -= size(whole(part));
      return whole(part);
    }
    // Room for the opening and the closing, with a </details> for every one an item opened.
    const kept: string[] = [];
    let room = left - size(part.open) - size(part.close);
    let depth = 0;
    for (const item of part.items) {
      const next = depth + count(item, /<details>/g) - count(item, /<\/details>/g);
      if (size([item]) + Math.max(0, next) * '</details>\n'.length > room) break;
      kept.push(item);
      depth = next;
      room -= size([item]);
    }
    cut = part.items.length - kept.length;
    if (kept.length === 0) return [];
    left = room;
    return [
      ...part.open,
      ...kept,
      ...Array.from({ length: Math.max(0, depth) }, () => '</details>'),
      ...part.close,
    ];
  });
  return [
    ...s.head,
    ...shown.flat(),
    cut > 0 ? note.replace('… cut', `… ${plural(cut, 'more entry', 'more entries')} cut`) : note,
    '',
  ];
}

/**
 * Shares of `room` for sections of the given sizes: the smallest first take what they need, the rest
 * split what is left evenly (so every folder appears, and a small folder gives its unused share away).
 */
export function shares(sizes: readonly number[], room: number): number[] {
  const out = new Array<number>(sizes.length).fill(0);
  const order = sizes.map((s, i) => [s, i] as const).sort((a, b) => a[0] - b[0]);
  let left = Math.max(0, room);
  order.forEach(([s, i], k) => {
    const share = Math.floor(left / (order.length - k));
    out[i] = Math.min(s, share);
    left -= out[i]!;
  });
  return out;
}

export function renderResults(results: readonly FolderResult[], opts: RenderOptions): string {
  const head = [`### ${opts.title}`, '', summaryLine(results, opts.noun), ''];
  if (opts.fullReport && opts.maxChars !== undefined) head.push(`Full report: ${opts.fullReport}.`, '');
  const foot = opts.footer ? [`<sub>${opts.footer}</sub>`, ''] : [];
  const sections = results.map((r) => folderSection(r, opts));
  let body: string[][];
  if (opts.maxChars === undefined) body = sections.map(sectionLines);
  else {
    const room = opts.maxChars - size(head) - size(foot);
    const budgets = shares(
      sections.map((s) => size(sectionLines(s))),
      room,
    );
    body = sections.map((s, i) =>
      fitSection(s, Math.max(budgets[i]!, size(s.head) + 200), opts.fullReport ?? 'see the job summary'),
    );
  }
  return [...head, ...body.flat(), ...foot].join('\n');
}
