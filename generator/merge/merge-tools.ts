/**
 * Re-import of tools (spec 2.4, 4.5.8; issues 4 and 9). Tools match their previous record by
 * endpoint (method + path shape), then by method + operationId. What the user decided is kept:
 * enabled, sortOrder, the widget, and every hand edit of the file, field by field (merge-tool.ts),
 * unless the endpoint changed in a way that makes the edit wrong; then a note says which field,
 * both values and why. An enabled tool keeps its name.
 */
import type { ToolItem } from '../../folder/model.js';
import type { CustomizationReset, SvcTool, ToolRef } from '../../schemas/types.js';
import { endpointMatchKey } from '../diff/endpoint-key.js';
import type { MergeNote } from './merge-notes.js';
import { type FieldReset, mergeTool } from './merge-tool.js';
import { sameJson } from './three-way.js';

const MAX_NAME = 64;

function ref(key: string, tool: SvcTool): ToolRef {
  return {
    key,
    name: tool.name,
    endpoint: `${tool.endpoint.method} ${tool.endpoint.path}`,
    enabled: tool.enabled,
  };
}

/** What a note says about the fields of one tool the merge reset or kept (`fields` is not empty). */
function customization(key: string, tool: SvcTool, fields: readonly FieldReset[]): CustomizationReset {
  return {
    key,
    name: tool.name,
    enabled: tool.enabled,
    endpoint: `${tool.endpoint.method} ${tool.endpoint.path}`,
    fields: fields.map((r) => r.field),
    changes: fields.map((r) => ({
      field: r.field,
      ...(r.previous !== undefined ? { previous: r.previous } : {}),
      ...(r.current !== undefined ? { current: r.current } : {}),
      reason: r.reason,
    })),
    reason: fields[0]!.reason,
  };
}

function matchKey(tool: SvcTool): string {
  return endpointMatchKey(tool.endpoint.method, tool.endpoint.path);
}

/**
 * The user renamed or re-described the tool (compared with what the file records the generator
 * produced; files of older releases record the description, newer ones leave it to .svc/generated.json).
 */
export function customizedFields(tool: SvcTool): ('name' | 'description')[] {
  const g = tool.generated;
  if (!g) return [];
  const fields: ('name' | 'description')[] = [];
  if (tool.name !== g.name) fields.push('name');
  if (g.description !== undefined && tool.description !== g.description) fields.push('description');
  return fields;
}

const USER_OWNED = new Set(['enabled', 'sortOrder', 'widget', 'stale', 'generated', 'origin']);

/** Whether the file differs from what the generator produced for it (any field but the user-owned ones). */
export function isCustomized(tool: SvcTool, base: SvcTool | undefined): boolean {
  if (!base) return customizedFields(tool).length > 0;
  const keys = new Set([...Object.keys(tool), ...Object.keys(base)]);
  for (const k of keys) {
    if (USER_OWNED.has(k)) continue;
    if (
      !sameJson(
        (tool as unknown as Record<string, unknown>)[k],
        (base as unknown as Record<string, unknown>)[k],
      )
    )
      return true;
  }
  return false;
}

/** A generated tool under the name and description the file records svc gave it. */
function withRecord(generated: SvcTool, file: SvcTool): SvcTool {
  const g = file.generated;
  if (!g) return generated;
  return {
    ...generated,
    name: g.name,
    ...(g.description !== undefined ? { description: g.description } : {}),
  };
}

/** Deterministic suffix: name, name_2, name_3… trimmed to fit 64 characters. */
export function uniqueName(wanted: string, taken: ReadonlySet<string>): string {
  if (!taken.has(wanted)) return wanted;
  for (let n = 2; ; n++) {
    const suffix = `_${n}`;
    const candidate = `${wanted.slice(0, MAX_NAME - suffix.length)}${suffix}`;
    if (!taken.has(candidate)) return candidate;
  }
}

function operationKey(tool: SvcTool): string | undefined {
  return tool.endpoint.operationId ? `${tool.endpoint.method} ${tool.endpoint.operationId}` : undefined;
}

/** Items by key, leaving out every key that more than one item has (an ambiguous match is no match). */
function uniqueBy<T>(items: readonly T[], keyOf: (item: T) => string | undefined): Map<string, T> {
  const out = new Map<string, T>();
  const dup = new Set<string>();
  for (const item of items) {
    const key = keyOf(item);
    if (key === undefined || dup.has(key)) continue;
    if (out.has(key)) {
      out.delete(key);
      dup.add(key);
    } else out.set(key, item);
  }
  return out;
}

export function mergeTools(
  previous: readonly ToolItem[],
  generated: readonly { key: string; tool: SvcTool }[],
  /** Folder key → the tool the previous import generated for it (the merge base). */
  bases: ReadonlyMap<string, SvcTool> = new Map(),
  /** Without a stored base: folder key → the tool as known generators write it (derived-bases.ts). */
  earlier: ReadonlyMap<string, readonly SvcTool[]> = new Map(),
): { tools: ToolItem[]; notes: MergeNote[]; generatedByKey: Map<string, SvcTool> } {
  const generatedByKey = new Map<string, SvcTool>();
  const notes: MergeNote[] = [];
  const byEndpoint = new Map<string, ToolItem>();
  for (const item of previous) {
    if (item.tool.origin !== 'imported') continue;
    const k = matchKey(item.tool);
    // Two previous tools for one endpoint (hand-copied file): the first by key wins, the other is left alone.
    if (!byEndpoint.has(k)) byEndpoint.set(k, item);
  }

  const result: ToolItem[] = [];
  const matched = new Set<ToolItem>();
  const fresh: { key: string; tool: SvcTool }[] = [];

  // First by endpoint; then, for what is left, by method + operationId: a path that was
  // renamed upstream is the same operation, and its tool keeps the reviewer's decisions.
  const pairs = new Map<number, ToolItem>();
  generated.forEach((next, i) => {
    const prev = byEndpoint.get(matchKey(next.tool));
    if (prev && !matched.has(prev)) {
      pairs.set(i, prev);
      matched.add(prev);
    }
  });
  const byOperation = uniqueBy(
    previous.filter((t) => t.tool.origin === 'imported' && !matched.has(t)),
    (t) => operationKey(t.tool),
  );
  const freshByOperation = uniqueBy(
    generated.filter((_, i) => !pairs.has(i)),
    (t) => operationKey(t.tool),
  );
  generated.forEach((next, i) => {
    if (pairs.has(i)) return;
    const key = operationKey(next.tool);
    const prev = key ? byOperation.get(key) : undefined;
    if (key && prev && freshByOperation.get(key) === next && !matched.has(prev)) {
      pairs.set(i, prev);
      matched.add(prev);
    }
  });

  for (const [i, next] of generated.entries()) {
    const prev = pairs.get(i);
    if (!prev) {
      fresh.push(next);
      continue;
    }
    const merged = mergeTool(bases.get(prev.key), prev.tool, next.tool, earlier.get(prev.key));
    const tool = merged.tool;
    generatedByKey.set(prev.key, next.tool);
    if (merged.resets.length > 0)
      notes.push({ kind: 'customization-reset', reset: customization(prev.key, tool, merged.resets) });
    if (merged.kept.length > 0)
      notes.push({ kind: 'customization-kept', kept: customization(prev.key, tool, merged.kept) });
    result.push({ key: prev.key, file: prev.file, tool });
  }

  for (const item of previous) {
    if (item.tool.origin !== 'imported') {
      result.push(item);
      continue;
    }
    if (matched.has(item)) continue;
    const candidates = earlier.get(item.key) ?? [];
    const base = bases.get(item.key) ?? candidates[0];
    // Without a stored base the file is unedited when some known generator wrote it so.
    const customized = bases.has(item.key)
      ? isCustomized(item.tool, base)
      : customizedFields(item.tool).length > 0 ||
        (candidates.length > 0 && candidates.every((c) => isCustomized(item.tool, withRecord(c, item.tool))));
    const touched = item.tool.enabled || customized || item.tool.widget !== undefined;
    if (!touched) {
      notes.push({ kind: 'tool-removed', tool: ref(item.key, item.tool) });
      continue;
    }
    const tool: SvcTool = { ...item.tool, stale: true };
    notes.push({
      kind: 'tool-stale',
      tool: ref(item.key, tool),
      reason: item.tool.enabled ? 'enabled' : 'customized',
    });
    if (base) generatedByKey.set(item.key, base);
    result.push({ key: item.key, file: item.file, tool });
  }

  // New endpoints: disabled, after everything that exists, keys and names never reused.
  const keys = new Set(result.map((t) => t.key.toLowerCase()));
  const names = new Set(result.map((t) => t.tool.name));
  let nextOrder = result.reduce((max, t) => Math.max(max, t.tool.sortOrder + 1), 0);
  for (const next of fresh) {
    let key = next.key;
    for (let n = 2; keys.has(key.toLowerCase()) || key === 'openapi'; n++) {
      key = `${next.key.slice(0, MAX_NAME - String(n).length - 1)}_${n}`;
    }
    keys.add(key.toLowerCase());
    const tool: SvcTool = { ...next.tool, enabled: false, sortOrder: nextOrder++ };
    const name = uniqueName(tool.name, names);
    if (name !== tool.name) {
      notes.push({ kind: 'tool-renamed-unique', tool: ref(key, { ...tool, name }), wanted: tool.name });
      tool.name = name;
      if (tool.generated) tool.generated = { ...tool.generated, name };
    }
    names.add(name);
    generatedByKey.set(key, tool);
    notes.push({ kind: 'tool-added', tool: ref(key, tool) });
    result.push({ key, file: `Tools/${key}.yaml`, tool });
  }

  // A kept customization or a regenerated name may now clash with another tool. Names agents
  // call or people chose win (manual tools, enabled tools, renamed tools); a generated name
  // yields with a suffix.
  result.sort((a, b) => a.tool.sortOrder - b.tool.sortOrder || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const rank = (t: ToolItem) =>
    t.tool.origin === 'manual' ? 0 : t.tool.enabled ? 1 : customizedFields(t.tool).includes('name') ? 2 : 3;
  const claimOrder = [...result].sort((a, b) => rank(a) - rank(b));
  const seen = new Set<string>();
  const all = new Set(result.map((t) => t.tool.name));
  for (const item of claimOrder) {
    if (!seen.has(item.tool.name)) {
      seen.add(item.tool.name);
      continue;
    }
    const wanted = item.tool.name;
    const name = uniqueName(wanted, all);
    all.add(name);
    seen.add(name);
    const wasGenerated = item.tool.generated?.name === wanted;
    item.tool = { ...item.tool, name };
    if (wasGenerated && item.tool.generated) item.tool.generated = { ...item.tool.generated, name };
    const base = generatedByKey.get(item.key);
    if (wasGenerated && base) generatedByKey.set(item.key, { ...base, name });
    notes.push({ kind: 'tool-renamed-unique', tool: ref(item.key, item.tool), wanted });
  }
  return { tools: result, notes, generatedByKey };
}
