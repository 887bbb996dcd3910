/**
 * outputSchema of a tool whose success response is a JSON object: the response's structure as
 * the document gives it (nested objects, arrays, shared shapes through $defs, nullability where
 * declared) but lenient, because MCP clients validate structuredContent against it and real
 * APIs rarely match their documents exactly. So it names types and properties only: no
 * `required`, no `additionalProperties`, no enums, formats, patterns or bounds, and `oneOf`
 * becomes `anyOf` (a value matching two branches is still a value). Descriptions are left out:
 * the tool description says what comes back, and a response's shape is what clients check.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { mediaRangeAdmitsJson } from '../endpoints/index.js';
import {
  type Defs,
  isSchema,
  mapSchema,
  resolveLocal,
  type Schema,
  selectDefs,
  stubMissingRefs,
} from './compact-schema.js';

/** Bytes of $defs one tool's output schema may carry (beyond them a reference keeps its type). */
export const OUTPUT_DEFS_BUDGET = 1500;

/** Keywords a lenient shape keeps; everything else constrains values and is dropped. */
const KEPT = new Set(['type', 'properties', 'items', 'prefixItems', 'anyOf', 'allOf', '$ref']);

const lenientCache = new WeakMap<object, Schema>();

/** The lenient form of a schema (cached per shared object: defs are shared by many tools). */
export function lenientSchema(schema: Schema): Schema {
  if (typeof schema === 'boolean') return true;
  const cached = lenientCache.get(schema);
  if (cached !== undefined) return cached;
  const out = mapSchema(schema, (node) => {
    const kept: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const value = node[key];
      if (key === 'oneOf') {
        if (Array.isArray(value)) kept.anyOf = value;
      } else if (KEPT.has(key)) kept[key] = value;
    }
    // A schema `false` under properties/items would refuse a value the API does send.
    if (isPlainObject(kept.properties)) {
      const properties: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(kept.properties)) properties[k] = v === false ? true : v;
      kept.properties = properties;
    }
    if (kept.items === false) delete kept.items;
    return kept;
  });
  lenientCache.set(schema, out);
  return out;
}

export function buildOutputSchema(endpoint: Endpoint): SvcTool['outputSchema'] | undefined {
  const response = endpoint.response;
  if (!response || response.schema === undefined) return undefined;
  if (response.contentType !== undefined && !mediaRangeAdmitsJson(response.contentType)) return undefined;
  const defs = endpoint.defs as Defs | undefined;
  const schema = resolveLocal(response.schema as Schema, defs);
  if (!isPlainObject(schema)) return undefined;
  const objectType =
    schema.type === 'object' || (schema.type === undefined && isPlainObject(schema.properties));
  if (!objectType || schema.oneOf || schema.anyOf || schema.allOf) return undefined;
  const root = lenientSchema(schema) as Record<string, unknown>;
  const kept = selectDefs([root], defs, OUTPUT_DEFS_BUDGET, lenientSchema);
  const out: Record<string, unknown> = { ...(stubMissingRefs(root, kept, defs, 'none') as object) };
  // The root is an object even where the document says "object or null": MCP requires it.
  out.type = 'object';
  if (kept.size > 0) {
    const $defs: Record<string, Schema> = {};
    for (const name of [...kept.keys()].sort()) {
      const def = kept.get(name)!;
      $defs[name] = isSchema(def) ? stubMissingRefs(def, kept, defs, 'none') : def;
    }
    out.$defs = $defs;
  }
  return out as SvcTool['outputSchema'];
}
