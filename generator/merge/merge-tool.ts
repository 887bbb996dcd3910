/**
 * One imported tool after a re-import (issue 9): every hand edit of the file survives unless
 * the endpoint changed in a way that makes it wrong. Per field, a three-way merge of the tool
 * the generator produced last time (base), the file (ours) and the tool generated now (theirs);
 * a real conflict keeps the user's value while it is still valid against the new endpoint and
 * otherwise takes the new value, with the field, both values and the reason for the report.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { SvcTool } from '../../schemas/types.js';
import { validate } from '../../schemas/validate.js';
import {
  type Conflict,
  type ConflictPolicy,
  isKeyword,
  type JsonPath,
  mergeThreeWay,
  type Resolution,
  sameJson,
} from './three-way.js';
import { NO_RECORD_REASON, unrecordedBase } from './unrecorded-base.js';

/** Fields the user owns outright (never merged) or the import computes. */
const NOT_MERGED = ['enabled', 'sortOrder', 'widget', 'stale', 'generated', 'origin'] as const;
/** Documentation keywords: words for the model, always the user's to choose. */
const DOC_KEYWORDS = new Set(['description', 'title', 'summary', 'examples', 'example', '$comment']);
/** Top-level fields that describe the wire: when they move upstream, the API decides. */
const WIRE_FIELDS = new Set(['endpoint', 'classification', 'body', 'locations']);

export interface FieldReset {
  /** Dotted path in the tool file, e.g. `inputSchema.properties.per_page.default`. */
  field: string;
  previous: unknown;
  current: unknown;
  reason: string;
}

export interface ToolMergeResult {
  tool: SvcTool;
  /** Hand edits the new endpoint made wrong: the generated value was taken. */
  resets: FieldReset[];
  /** Conflicts settled in the user's favour (the API changed a field the user had edited). */
  kept: FieldReset[];
}

export function fieldName(path: JsonPath): string {
  return path.join('.');
}

function mergeable(tool: SvcTool): Record<string, unknown> {
  const out: Record<string, unknown> = { ...tool };
  for (const k of NOT_MERGED) delete out[k];
  return out;
}

function typeMatches(value: unknown, type: unknown): boolean {
  if (type === undefined) return true;
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    switch (t) {
      case 'null':
        return value === null;
      case 'integer':
        return Number.isInteger(value);
      case 'number':
        return typeof value === 'number';
      case 'string':
        return typeof value === 'string';
      case 'boolean':
        return typeof value === 'boolean';
      case 'array':
        return Array.isArray(value);
      case 'object':
        return isPlainObject(value);
      default:
        return true;
    }
  });
}

function at(value: unknown, path: JsonPath): unknown {
  let v = value;
  for (const k of path) v = isPlainObject(v) ? v[k] : undefined;
  return v;
}

/** The conflict policy for tool files; `theirs` is the whole tool generated now. */
function toolPolicy(theirs: Record<string, unknown>): ConflictPolicy {
  return (c: Conflict): Resolution => {
    const top = c.path[0] ?? '';
    const last = c.path[c.path.length - 1] ?? '';
    if (c.path.length === 1 && (top === 'name' || top === 'title' || top === 'description')) {
      return { take: 'ours' };
    }
    if (top === 'annotations') return { take: 'ours' };
    if (WIRE_FIELDS.has(top)) {
      return {
        take: 'theirs',
        reason: `the API changed how this ${top === 'locations' ? 'parameter is sent' : 'endpoint is called'}`,
      };
    }
    if (top !== 'inputSchema' && top !== 'outputSchema') return { take: 'ours' };
    if (isKeyword(c.path) && DOC_KEYWORDS.has(last)) return { take: 'ours' };
    const parent = at(theirs, c.path.slice(0, -1));
    if (isKeyword(c.path) && last === 'enum' && Array.isArray(c.ours) && Array.isArray(c.theirs)) {
      // A list the user narrowed stays narrow; values the API no longer accepts leave it.
      const allowed = c.theirs;
      const still = c.ours.filter((v) => allowed.some((a) => sameJson(a, v)));
      if (still.length === c.ours.length) return { take: 'ours' };
      const gone = c.ours.filter((v) => !still.includes(v)).map((v) => JSON.stringify(v));
      if (still.length === 0) {
        return { take: 'theirs', reason: 'the API no longer accepts any of the edited values' };
      }
      return { take: 'theirs', value: still, reason: `the API no longer accepts ${gone.join(', ')}` };
    }
    if (isKeyword(c.path) && last === 'default' && c.ours !== undefined) {
      const node = isPlainObject(parent) ? parent : {};
      const inEnum = !Array.isArray(node.enum) || node.enum.some((v) => sameJson(v, c.ours));
      if (inEnum && typeMatches(c.ours, node.type)) return { take: 'ours' };
      return { take: 'theirs', reason: 'the edited default is no longer a valid value of the parameter' };
    }
    // A property the user deleted: it stays deleted while the API lets the call go without it.
    const grand = c.path[c.path.length - 2];
    if (c.ours === undefined && grand === 'properties' && top === 'inputSchema' && c.path.length === 3) {
      const required = (theirs.inputSchema as { required?: unknown }).required;
      if (Array.isArray(required) && required.includes(last)) {
        return { take: 'theirs', reason: 'the API now requires this parameter' };
      }
      return { take: 'ours' };
    }
    if (c.ours === undefined && top === 'outputSchema') return { take: 'ours' };
    if (c.theirs === undefined && grand === 'properties') {
      return {
        take: 'theirs',
        reason:
          top === 'inputSchema'
            ? 'the API no longer has this parameter'
            : 'the API no longer returns this property',
      };
    }
    return {
      take: 'theirs',
      reason:
        top === 'inputSchema'
          ? 'the API changed this part of the input, so the edit no longer matches it'
          : 'the API changed this part of the response, so the edit no longer matches it',
    };
  };
}

/**
 * A user value the generated side left alone can still be wrong against the new endpoint: a
 * default the new enum or type no longer allows, an enum narrowed to nothing. Those take the
 * generated value (walks every schema node, comparing with the generated schema at the same path).
 */
function checkKeptValues(node: unknown, generated: unknown, path: string[], resets: FieldReset[]): void {
  if (Array.isArray(node)) {
    node.forEach((v, i) => {
      checkKeptValues(v, Array.isArray(generated) ? generated[i] : undefined, [...path, String(i)], resets);
    });
    return;
  }
  if (!isPlainObject(node)) return;
  const g = isPlainObject(generated) ? generated : {};
  if (Array.isArray(node.enum) && node.enum.length === 0 && Array.isArray(g.enum)) {
    resets.push({
      field: [...path, 'enum'].join('.'),
      previous: node.enum,
      current: g.enum,
      reason: 'the API no longer allows any of the edited values',
    });
    node.enum = g.enum;
  }
  if ('default' in node && !sameJson(node.default, g.default)) {
    const inEnum = !Array.isArray(node.enum) || node.enum.some((v) => sameJson(v, node.default));
    if (!inEnum || !typeMatches(node.default, node.type)) {
      resets.push({
        field: [...path, 'default'].join('.'),
        previous: node.default,
        current: g.default,
        reason: 'the edited default is no longer a valid value of the parameter',
      });
      if (g.default === undefined) delete node.default;
      else node.default = g.default;
    }
  }
  for (const [k, v] of Object.entries(node)) {
    if (k === 'default' || k === 'enum' || k === 'examples' || k === 'const') continue;
    checkKeptValues(v, g[k], [...path, k], resets);
  }
}

interface InputShape {
  properties?: Record<string, unknown>;
  required?: string[];
}

/**
 * Properties, `required` and `locations` must agree after a merge: a parameter the API now
 * requires comes back, a deleted one loses its location, a kept one keeps (or gets) its own.
 */
function reconcile(
  merged: Record<string, unknown>,
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
  resets: FieldReset[],
): void {
  const input = merged.inputSchema as InputShape | undefined;
  const theirsInput = theirs.inputSchema as InputShape | undefined;
  if (!input || typeof input !== 'object') return;
  const props: Record<string, unknown> = isPlainObject(input.properties) ? { ...input.properties } : {};
  const locations: Record<string, unknown> = isPlainObject(merged.locations) ? { ...merged.locations } : {};
  const theirsLocations = (theirs.locations ?? {}) as Record<string, unknown>;
  const theirsRequired = Array.isArray(theirsInput?.required) ? theirsInput.required : [];
  if (Array.isArray(input.required)) {
    for (const name of input.required) {
      if (name in props) continue;
      const restored = theirsInput?.properties?.[name];
      if (restored === undefined || !theirsRequired.includes(name)) continue;
      props[name] = restored;
      resets.push({
        field: `inputSchema.properties.${name}`,
        previous: undefined,
        current: restored,
        reason: 'the API now requires this parameter',
      });
    }
    input.required = input.required.filter((n) => n in props);
    if (input.required.length === 0 && !Array.isArray((ours.inputSchema as InputShape).required)) {
      delete input.required;
    }
  }
  if (isPlainObject(input.properties) || Object.keys(props).length > 0) input.properties = props;
  for (const name of Object.keys(locations)) if (!(name in props)) delete locations[name];
  for (const name of Object.keys(props)) {
    if (!(name in locations) && theirsLocations[name] !== undefined) locations[name] = theirsLocations[name];
  }
  merged.locations = locations;
}

/** Where a parameter goes and which endpoint is called are single facts, not field mixes. */
function atomicPath(p: JsonPath): boolean {
  return (
    (p.length === 2 && p[0] === 'locations') || (p.length === 1 && (p[0] === 'endpoint' || p[0] === 'body'))
  );
}

/**
 * Merges one tool. `base` is the tool generated by the previous import. Without one (a folder
 * written before svc stored them), `earlier` holds the tool as known generators write it for
 * the endpoint the file was made from, and the base is reconstructed field by field
 * (unrecorded-base.ts); what still differs and no generator explains is kept as the user's and
 * reported as kept for want of a record.
 */
export function mergeTool(
  base: SvcTool | undefined,
  ours: SvcTool,
  theirs: SvcTool,
  earlier: readonly SvcTool[] = [],
): ToolMergeResult {
  const o = mergeable(ours);
  const t = mergeable(theirs);
  let b: Record<string, unknown>;
  let unknown: JsonPath[] = [];
  if (base) b = mergeable(base);
  else {
    const rebuilt = unrecordedBase(o, t, earlier.map(mergeable), atomicPath);
    b = rebuilt.base;
    unknown = rebuilt.unknown;
    // The file records the name and description svc gave it: a record, not a guess.
    const g = ours.generated;
    if (g) {
      const recorded = g.description !== undefined ? ['name', 'description'] : ['name'];
      b.name = g.name;
      if (g.description !== undefined) b.description = g.description;
      unknown = unknown.filter((p) => !(p.length === 1 && recorded.includes(p[0]!)));
    }
  }
  // Where a parameter goes and which endpoint is called are single facts, not field mixes.
  const outcome = mergeThreeWay(b, o, t, toolPolicy(t), atomicPath);
  const merged = outcome.value as Record<string, unknown>;
  const resets: FieldReset[] = [];
  const kept: FieldReset[] = [];
  for (const c of outcome.conflicts) {
    const field = fieldName(c.path);
    if (c.take === 'theirs')
      resets.push({ field, previous: c.ours, current: c.result, reason: c.reason ?? '' });
    // Kept: previous → current is what the API's side did; the file keeps the user's value.
    else
      kept.push({
        field,
        previous: c.base,
        current: c.theirs,
        reason: 'the API changed this field too; the edit is kept',
      });
  }
  reconcile(merged, o, t, resets);
  checkKeptValues(merged.inputSchema, t.inputSchema, ['inputSchema'], resets);
  const settled = new Set([
    ...outcome.conflicts.map((c) => fieldName(c.path)),
    ...resets.map((r) => r.field),
  ]);
  for (const path of unknown) {
    const field = fieldName(path);
    const now = at(merged, path);
    if (settled.has(field) || !sameJson(now, at(o, path)) || sameJson(now, at(t, path))) continue;
    kept.push({ field, previous: undefined, current: at(t, path), reason: NO_RECORD_REASON });
  }
  // An enabled tool's name is what agents call: a re-import never changes it.
  if (ours.enabled) merged.name = ours.name;
  const tool = {
    ...merged,
    enabled: ours.enabled,
    sortOrder: ours.sortOrder,
    origin: theirs.origin,
    ...(ours.widget !== undefined ? { widget: ours.widget } : {}),
    ...(theirs.generated ? { generated: theirs.generated } : {}),
  } as unknown as SvcTool;
  const checked = validate('tool', tool);
  if (checked.ok) return { tool, resets, kept };
  // The edits do not fit the new tool at all: the generated tool, with the user's own choices.
  const fallback: SvcTool = {
    ...theirs,
    name: ours.enabled ? ours.name : theirs.name,
    enabled: ours.enabled,
    sortOrder: ours.sortOrder,
    ...(ours.widget !== undefined ? { widget: ours.widget } : {}),
  };
  delete fallback.stale;
  const changed = Object.keys({ ...o, ...t }).filter(
    (k) => !sameJson(o[k], t[k]) && !(k === 'name' && ours.enabled),
  );
  return {
    tool: fallback,
    resets: changed.map((k) => ({
      field: k,
      previous: o[k],
      current: t[k],
      reason: 'the edited tool no longer fits the endpoint (it would not be a valid tool file)',
    })),
    kept: [],
  };
}
