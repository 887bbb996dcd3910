/**
 * Tool schemas and their $defs. An input schema carries every $def it reaches (the model must
 * see the whole request: MCP tools cannot share definitions in tools/list, so each tool holds its
 * own); only beyond INPUT_DEFS_LIMIT, which no request body of the real APIs we test against
 * comes near, does a reference become an open schema keeping the target's type, and the import
 * warns for that tool. Output schemas keep a small budget: they are lenient shapes anyway.
 * Descriptions inside schemas take the tool's style: whole (HTML as Markdown) by default, cut to
 * a first sentence when compact.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import { DEFS_PREFIX } from '../endpoints/index.js';
import { collectDefRefs } from '../endpoints/schema-convert.js';
import { COMPACT_TEXT, MAX_NESTED_DESCRIPTION, propertyDescription, type TextForm } from './describe.js';
import type { MarkdownConverter } from './html-to-markdown.js';

export type Schema = Record<string, unknown> | boolean;
export type Defs = Record<string, Schema | undefined>;

/**
 * Bytes of $defs (measured in compact form) one tool's input schema may carry: a safety limit
 * against pathological documents (Kubernetes' largest request bodies stay below it), not a
 * budget. A tool that reaches it is named in the import's warnings.
 */
export const INPUT_DEFS_LIMIT = 256 * 1024;

const styledCache = new WeakMap<MarkdownConverter, Record<string, WeakMap<object, Schema>>>();

/** A schema with its descriptions in the given form (cached per shared object: defs are shared). */
export function styleSchema(schema: Schema | undefined, form: TextForm): Schema {
  if (schema === undefined) return {};
  if (typeof schema === 'boolean') return schema;
  let byStyle = styledCache.get(form.markdown);
  if (byStyle === undefined) {
    byStyle = {};
    styledCache.set(form.markdown, byStyle);
  }
  byStyle[form.style] ??= new WeakMap();
  const cache = byStyle[form.style]!;
  const cached = cache.get(schema);
  if (cached !== undefined) return cached;
  const out = mapSchema(schema, (node) => {
    if (typeof node.description !== 'string') return node;
    const description = propertyDescription(node.description, form, MAX_NESTED_DESCRIPTION);
    return description === node.description ? node : { ...node, description };
  });
  cache.set(schema, out);
  return out;
}

/** The short form of a schema, which is what def budgets are measured on. */
export function compactSchema(schema: Schema | undefined): Schema {
  return styleSchema(schema, COMPACT_TEXT);
}

/**
 * Applies fn bottom-up to every subschema; returns the same object when nothing changed so
 * shared structure stays shared.
 */
export function mapSchema(
  schema: Schema,
  fn: (node: Record<string, unknown>) => Record<string, unknown>,
): Schema {
  if (typeof schema === 'boolean') return schema;
  let changed = false;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(schema)) {
    const value = schema[key];
    let next = value;
    if (key === 'properties' || key === 'patternProperties' || key === 'dependentSchemas') {
      if (isPlainObject(value)) {
        let inner = false;
        const map: Record<string, unknown> = {};
        for (const k of Object.keys(value)) {
          const v = value[k];
          const m = isSchema(v) ? mapSchema(v, fn) : v;
          if (m !== v) inner = true;
          map[k] = m;
        }
        if (inner) next = map;
      }
    } else if (key === 'allOf' || key === 'anyOf' || key === 'oneOf' || key === 'prefixItems') {
      if (Array.isArray(value)) {
        const list = value.map((v) => (isSchema(v) ? mapSchema(v, fn) : v));
        if (list.some((v, i) => v !== value[i])) next = list;
      }
    } else if (
      key === 'items' ||
      key === 'additionalProperties' ||
      key === 'not' ||
      key === 'if' ||
      key === 'then' ||
      key === 'else' ||
      key === 'contains' ||
      key === 'propertyNames' ||
      key === 'unevaluatedProperties'
    ) {
      if (isSchema(value)) next = mapSchema(value, fn);
    }
    if (next !== value) changed = true;
    copy[key] = next;
  }
  const base = changed ? copy : schema;
  return fn(base);
}

/**
 * The $defs a tool schema should carry: breadth-first from the schema's own references, each
 * def taken while the running size stays within the budget (nearest first, so the shape the
 * model sees first is the one it gets in full). Sizes are measured on the compact form, so
 * full descriptions never change which shapes a tool shares; the defs come back in `form`.
 */
export function selectDefs(
  roots: readonly unknown[],
  defs: Defs | undefined,
  budget: number,
  form: TextForm | ((def: Schema) => Schema) = COMPACT_TEXT,
): Map<string, Schema> {
  // A function gives the form a def is both measured and carried in (output schemas).
  const measured = typeof form === 'function' ? form : compactSchema;
  const carried = typeof form === 'function' ? form : (def: Schema) => styleSchema(def, form);
  const chosen = new Map<string, Schema>();
  if (!defs) return chosen;
  let used = 0;
  let frontier = [...new Set(roots.flatMap((r) => collectDefRefs(r)))].sort();
  const seen = new Set<string>(frontier);
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const name of frontier) {
      const def = defs[name];
      if (def === undefined) continue;
      const compact = measured(def);
      const { size: bytes, refs } = measureDef(compact);
      const size = bytes + name.length + 4;
      if (used + size > budget) continue;
      used += size;
      chosen.set(name, carried(def));
      for (const ref of refs) {
        if (!seen.has(ref)) {
          seen.add(ref);
          next.push(ref);
        }
      }
    }
    frontier = next.sort();
  }
  return chosen;
}

const measuredDefs = new WeakMap<object, { size: number; refs: string[] }>();

/**
 * A def's size in compact JSON and the defs it references: the same for every tool that reaches
 * it (GitHub's tools reach the same few hundred defs over a thousand times), so measured once
 * per def object.
 */
function measureDef(def: Schema): { size: number; refs: string[] } {
  const known = typeof def === 'object' ? measuredDefs.get(def) : undefined;
  if (known) return known;
  const out = { size: JSON.stringify(def).length, refs: collectDefRefs(def) };
  if (typeof def === 'object') measuredDefs.set(def, out);
  return out;
}

/** Replaces references to defs outside `kept` with an open schema keeping the target's type. */
export function stubMissingRefs(
  schema: Schema,
  kept: ReadonlyMap<string, unknown>,
  defs: Defs | undefined,
  form: TextForm | 'none' = COMPACT_TEXT,
): Schema {
  return mapSchema(schema, (node) => {
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith(DEFS_PREFIX)) return node;
    const name = ref.slice(DEFS_PREFIX.length);
    if (kept.has(name)) return node;
    const { $ref: _drop, ...rest } = node;
    return { ...typeStub(defs?.[name], form), ...rest };
  });
}

export function typeStub(def: Schema | undefined, form: TextForm | 'none'): Record<string, unknown> {
  if (!isPlainObject(def)) return {};
  const out: Record<string, unknown> = {};
  if (def.type !== undefined) out.type = def.type;
  else if (isPlainObject(def.properties)) out.type = 'object';
  if (typeof def.description === 'string' && form !== 'none')
    out.description = propertyDescription(def.description, form, MAX_NESTED_DESCRIPTION);
  return out;
}

/** Follows one $ref into defs (for looking at a body's or response's shape). */
export function resolveLocal(schema: Schema | undefined, defs: Defs | undefined): Schema | undefined {
  let node = schema;
  const seen = new Set<string>();
  while (isPlainObject(node) && typeof node.$ref === 'string' && node.$ref.startsWith(DEFS_PREFIX)) {
    const name = node.$ref.slice(DEFS_PREFIX.length);
    if (seen.has(name)) return undefined;
    seen.add(name);
    node = defs?.[name];
  }
  return node;
}

export function isSchema(value: unknown): value is Schema {
  return typeof value === 'boolean' || isPlainObject(value);
}
