/**
 * What a pull request does to the tools of one folder, read from Tools/<key>.yaml at the base and the head:
 * tools added or removed, enabled or disabled, renamed or re-described, marked stale. A change that an MCP
 * client of the published server would notice (an enabled tool that disappears or changes its name) is
 * breaking; disabling a tool is a warning, since it is a deliberate choice that still removes a tool.
 */
import { isDeepStrictEqual } from 'node:util';
import { parse as parseYaml } from 'yaml';
import type { FolderFiles } from '../../folder/model.js';
import type { ChangeLevel } from '../../generator/diff/index.js';

export type ToolChangeKind =
  | 'tool-added'
  | 'tool-removed'
  | 'tool-enabled'
  | 'tool-disabled'
  | 'tool-renamed'
  | 'tool-description-changed'
  | 'tool-input-changed'
  | 'tool-became-stale';

export interface ToolChange {
  kind: ToolChangeKind;
  level: ChangeLevel;
  /** File stem of Tools/<key>.yaml. */
  key: string;
  /** Exposed name at the head (or at the base for a removed tool). */
  name: string;
  endpoint: string;
  /** Whether the tool is enabled at the head (for a removed tool: whether it was enabled at the base). */
  enabled: boolean;
  detail?: string;
}

export interface ToolView {
  name: string;
  description: string;
  enabled: boolean;
  stale: boolean;
  endpoint: string;
  inputSchema: unknown;
  locations: unknown;
  annotations: unknown;
}

const TOOL_FILE = /^Tools\/([A-Za-z0-9_-]{1,64})\.yaml$/;

/**
 * Parsed tool files by text. Base and head share most tool files byte for byte, and YAML parsing dominates
 * the cost on a large API, so one cache per folder parses each distinct text once.
 */
export type ToolViewCache = Map<string, ToolView | null>;

function toolView(text: string, cache: ToolViewCache): ToolView | null {
  const cached = cache.get(text);
  if (cached !== undefined) return cached;
  let view: ToolView | null = null;
  try {
    const raw = parseYaml(text) as Record<string, unknown> | null;
    if (raw && typeof raw === 'object') {
      const endpoint = raw['endpoint'] as { method?: string; path?: string } | undefined;
      view = {
        name: typeof raw['name'] === 'string' ? raw['name'] : '',
        description: typeof raw['description'] === 'string' ? raw['description'] : '',
        enabled: raw['enabled'] === true,
        stale: raw['stale'] === true,
        endpoint: endpoint?.method && endpoint.path ? `${endpoint.method} ${endpoint.path}` : '',
        inputSchema: raw['inputSchema'],
        locations: raw['locations'],
        annotations: raw['annotations'],
      };
    }
  } catch {
    view = null;
  }
  cache.set(text, view);
  return view;
}

/** Tool files parsed tolerantly: a file that does not parse is left out (the folder validator reports it). */
export function readToolViews(
  files: FolderFiles,
  cache: ToolViewCache = new Map(),
  want: (key: string, text: string) => boolean = () => true,
): Map<string, ToolView> {
  const tools = new Map<string, ToolView>();
  for (const [path, text] of Object.entries(files)) {
    const key = TOOL_FILE.exec(path)?.[1];
    if (!key || !want(key, text)) continue;
    const view = toolView(text, cache);
    if (view) tools.set(key, view.name ? view : { ...view, name: key });
  }
  return tools;
}

export function diffTools(
  base: FolderFiles,
  head: FolderFiles,
  cache: ToolViewCache = new Map(),
): ToolChange[] {
  // A tool file with the same text on both sides cannot change: only the others are parsed.
  const differs = (other: FolderFiles) => (key: string, text: string) => other[`Tools/${key}.yaml`] !== text;
  const before = readToolViews(base, cache, differs(head));
  const after = readToolViews(head, cache, differs(base));
  const changes: ToolChange[] = [];
  const keys = [...new Set([...before.keys(), ...after.keys()])].sort();
  for (const key of keys) {
    const b = before.get(key);
    const a = after.get(key);
    if (!b && a) {
      changes.push({
        kind: 'tool-added',
        level: 'info',
        key,
        name: a.name,
        endpoint: a.endpoint,
        enabled: a.enabled,
      });
      continue;
    }
    if (b && !a) {
      changes.push({
        kind: 'tool-removed',
        level: b.enabled ? 'breaking' : 'info',
        key,
        name: b.name,
        endpoint: b.endpoint,
        enabled: b.enabled,
      });
      continue;
    }
    if (!a || !b) continue;
    const at = { key, name: a.name, endpoint: a.endpoint, enabled: a.enabled };
    if (!b.enabled && a.enabled) changes.push({ kind: 'tool-enabled', level: 'info', ...at });
    if (b.enabled && !a.enabled) changes.push({ kind: 'tool-disabled', level: 'warning', ...at });
    if (b.name !== a.name) {
      changes.push({
        kind: 'tool-renamed',
        level: b.enabled && a.enabled ? 'breaking' : 'info',
        detail: `${b.name} → ${a.name}`,
        ...at,
      });
    }
    if (b.description !== a.description)
      changes.push({ kind: 'tool-description-changed', level: 'info', ...at });
    const input = inputChange(b, a);
    if (input) {
      changes.push({
        kind: 'tool-input-changed',
        level: b.enabled && a.enabled ? input.level : 'info',
        detail: input.detail,
        ...at,
      });
    }
    if (!b.stale && a.stale) {
      changes.push({ kind: 'tool-became-stale', level: a.enabled ? 'warning' : 'info', ...at });
    }
  }
  return changes;
}

const MAX_PATHS = 4;
const MAX_VALUE = 60;

function short(v: unknown): string {
  if (v === undefined) return '(none)';
  const text = JSON.stringify(v) ?? String(v);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

/** The leaves where two JSON values differ, as `a.b.c: before → after`, in document order. */
export function jsonDifferences(before: unknown, after: unknown, at = '', out: string[] = []): string[] {
  if (isDeepStrictEqual(before, after)) return out;
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)]))
      jsonDifferences(before[key], after[key], at ? `${at}.${key}` : key, out);
    return out;
  }
  out.push(`${at || '(root)'}: ${short(before)} → ${short(after)}`);
  return out;
}

function asStrings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function propertiesOf(schema: unknown): string[] {
  const props = (schema as { properties?: unknown } | null | undefined)?.properties;
  return props && typeof props === 'object' ? Object.keys(props) : [];
}

/**
 * A hand edit to what the model sends (inputSchema), where svc puts it (locations) or how the tool is
 * described to the host (annotations). For callers of an enabled tool, a property taken away or newly
 * required breaks calls that worked before: breaking; any other such edit is a warning to review.
 */
function inputChange(b: ToolView, a: ToolView): { level: ChangeLevel; detail: string } | undefined {
  const fields = (['inputSchema', 'locations', 'annotations'] as const).filter(
    (f) => !isDeepStrictEqual(b[f], a[f]),
  );
  if (fields.length === 0) return undefined;
  const paths = fields.flatMap((f) => jsonDifferences(b[f], a[f], f));
  const removed = propertiesOf(b.inputSchema).filter((p) => !propertiesOf(a.inputSchema).includes(p));
  const before = new Set(asStrings((b.inputSchema as { required?: unknown } | null)?.required));
  const required = asStrings((a.inputSchema as { required?: unknown } | null)?.required).filter(
    (p) => !before.has(p),
  );
  const notes = [
    ...(removed.length > 0 ? [`property removed: ${removed.join(', ')}`] : []),
    ...(required.length > 0 ? [`newly required: ${required.join(', ')}`] : []),
  ];
  const shown = paths.slice(0, MAX_PATHS);
  const more = paths.length - shown.length;
  const detail = [
    `hand edit to ${fields.join(', ')}`,
    ...notes,
    ...shown,
    ...(more > 0 ? [`${more} more`] : []),
  ].join('; ');
  return { level: notes.length > 0 ? 'breaking' : 'warning', detail };
}

/** Enabled tools at the head, by endpoint ("METHOD /path"), to find which API changes hit them. */
/**
 * A top-level `enabled: false` line settles it without parsing: in block YAML a key at column 0 is a key of
 * the document (a block scalar's lines are indented). Anything else (true, flow style, odd spelling) is parsed.
 */
const SURELY_DISABLED = /^enabled:[ \t]*false[ \t]*(?:#.*)?$/m;

export function enabledEndpoints(files: FolderFiles, cache: ToolViewCache = new Map()): Map<string, string> {
  const out = new Map<string, string>();
  for (const view of readToolViews(files, cache, (_key, text) => !SURELY_DISABLED.test(text)).values())
    if (view.enabled && view.endpoint) out.set(view.endpoint, view.name);
  return out;
}
