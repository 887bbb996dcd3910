/**
 * Structural comparison of two JSON Schemas, each read in the scope of its own endpoint's
 * `defs`. It reports what a caller can notice (types, properties, required-ness, enum values),
 * not wording; the caller (diff-endpoint) decides what each finding means for a request or a
 * response. Cycles and deep nesting are cut off, so any pair of schemas finishes quickly.
 */
export type SchemaFindingKind =
  | 'type-changed'
  | 'property-added'
  | 'property-removed'
  | 'became-required'
  | 'became-optional'
  | 'enum-value-added'
  | 'enum-value-removed';

export interface SchemaFinding {
  kind: SchemaFindingKind;
  /** Dotted property path from the root ("" for the root itself), "[]" for array items. */
  path: string;
  detail: string;
  /** property-added: whether the new property is required. */
  required?: boolean;
}

type Defs = Record<string, unknown> | undefined;
type Obj = Record<string, unknown>;

const MAX_DEPTH = 8;
const MAX_REF_HOPS = 32;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows `#/$defs/Name` (or any `#/.../Name`) references to a concrete schema. */
function resolve(schema: unknown, defs: Defs): { schema: Obj; ref?: string } {
  let current = schema;
  let ref: string | undefined;
  for (let hop = 0; hop < MAX_REF_HOPS && isObj(current) && typeof current.$ref === 'string'; hop++) {
    ref = current.$ref;
    const name = decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1))
      .replace(/~1/g, '/')
      .replace(/~0/g, '~');
    current = defs?.[name];
  }
  return { schema: isObj(current) ? current : {}, ...(ref ? { ref } : {}) };
}

interface Flat {
  types?: string;
  properties: Map<string, unknown>;
  required: Set<string>;
  items?: unknown;
  enumValues?: Set<string>;
  refs: string[];
}

/** One view of a schema with allOf merged in, the way a validator would combine them. */
function flatten(schema: unknown, defs: Defs): Flat {
  const flat: Flat = { properties: new Map(), required: new Set(), refs: [] };
  const types = new Set<string>();
  const visit = (node: unknown, depth: number): void => {
    const { schema: s, ref } = resolve(node, defs);
    if (ref) {
      if (flat.refs.includes(ref) || depth > MAX_REF_HOPS) return;
      flat.refs.push(ref);
    }
    if (typeof s.type === 'string') types.add(s.type);
    else if (Array.isArray(s.type)) for (const t of s.type) if (typeof t === 'string') types.add(t);
    if (s.nullable === true) types.add('null');
    if (isObj(s.properties)) {
      for (const [name, value] of Object.entries(s.properties)) {
        if (!flat.properties.has(name)) flat.properties.set(name, value);
      }
    }
    if (Array.isArray(s.required))
      for (const r of s.required) if (typeof r === 'string') flat.required.add(r);
    if (s.items !== undefined && flat.items === undefined) flat.items = s.items;
    if (Array.isArray(s.enum) && !flat.enumValues)
      flat.enumValues = new Set(s.enum.map((v) => JSON.stringify(v)));
    if (Array.isArray(s.allOf)) for (const part of s.allOf) visit(part, depth + 1);
  };
  visit(schema, 0);
  if (types.size === 0) {
    if (flat.properties.size > 0) types.add('object');
    else if (flat.items !== undefined) types.add('array');
  }
  if (types.size > 0) flat.types = [...types].sort().join('|');
  return flat;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

export function diffSchemas(
  before: unknown,
  beforeDefs: Defs,
  after: unknown,
  afterDefs: Defs,
): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  const seen = new Set<string>();

  const walk = (b: unknown, a: unknown, path: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    const fb = flatten(b, beforeDefs);
    const fa = flatten(a, afterDefs);
    // The same pair of named schemas reached twice (a cycle, or a shared type): compare once.
    const pairKey = `${fb.refs.join(',')}|${fa.refs.join(',')}`;
    if (fb.refs.length > 0 && fa.refs.length > 0) {
      if (seen.has(pairKey)) return;
      seen.add(pairKey);
    }
    if (fb.types && fa.types && fb.types !== fa.types) {
      findings.push({ kind: 'type-changed', path, detail: `${fb.types} → ${fa.types}` });
      return;
    }
    if (fb.enumValues && fa.enumValues) {
      for (const v of [...fb.enumValues].sort()) {
        if (!fa.enumValues.has(v)) findings.push({ kind: 'enum-value-removed', path, detail: v });
      }
      for (const v of [...fa.enumValues].sort()) {
        if (!fb.enumValues.has(v)) findings.push({ kind: 'enum-value-added', path, detail: v });
      }
    }
    const names = [...new Set([...fb.properties.keys(), ...fa.properties.keys()])].sort();
    for (const name of names) {
      const p = join(path, name);
      const inBefore = fb.properties.has(name);
      const inAfter = fa.properties.has(name);
      if (inBefore && !inAfter) {
        findings.push({ kind: 'property-removed', path: p, detail: name });
        continue;
      }
      if (!inBefore && inAfter) {
        findings.push({ kind: 'property-added', path: p, detail: name, required: fa.required.has(name) });
        continue;
      }
      const wasRequired = fb.required.has(name);
      const isRequired = fa.required.has(name);
      if (!wasRequired && isRequired) findings.push({ kind: 'became-required', path: p, detail: name });
      if (wasRequired && !isRequired) findings.push({ kind: 'became-optional', path: p, detail: name });
      walk(fb.properties.get(name), fa.properties.get(name), p, depth + 1);
    }
    if (fb.items !== undefined && fa.items !== undefined) walk(fb.items, fa.items, `${path}[]`, depth + 1);
  };

  walk(before, after, '', 0);
  return findings;
}
