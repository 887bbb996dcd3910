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

function prefixed(path: string, rel: string): string {
  if (rel === '') return path;
  if (rel.startsWith('[]')) return `${path}${rel}`;
  return join(path, rel);
}

/**
 * Compares schemas within one pair of documents. Component schemas are named, and a name
 * means one schema per document, so the findings for a pair of references are computed once
 * and reused by every endpoint that uses them: a 1,000-endpoint API sharing a large
 * `repository` schema is walked once, not a thousand times.
 */
export class SchemaDiffer {
  private readonly cache = new Map<string, SchemaFinding[]>();
  private readonly active = new Set<string>();

  diff(before: unknown, beforeDefs: Defs, after: unknown, afterDefs: Defs): SchemaFinding[] {
    return this.compare(before, beforeDefs, after, afterDefs, 0);
  }

  private compare(b: unknown, bDefs: Defs, a: unknown, aDefs: Defs, depth: number): SchemaFinding[] {
    const bRef = isObj(b) && typeof b.$ref === 'string' ? b.$ref : undefined;
    const aRef = isObj(a) && typeof a.$ref === 'string' ? a.$ref : undefined;
    if (bRef && aRef) {
      const key = `${bRef}\u0000${aRef}`;
      const cached = this.cache.get(key);
      if (cached) return cached;
      // A cycle: the outer comparison of this pair reports what differs.
      if (this.active.has(key)) return [];
      this.active.add(key);
      const found = this.compareNode(b, bDefs, a, aDefs, 0);
      this.active.delete(key);
      this.cache.set(key, found);
      return found;
    }
    if (depth > MAX_DEPTH) return [];
    return this.compareNode(b, bDefs, a, aDefs, depth);
  }

  private compareNode(b: unknown, bDefs: Defs, a: unknown, aDefs: Defs, depth: number): SchemaFinding[] {
    const findings: SchemaFinding[] = [];
    const fb = flatten(b, bDefs);
    const fa = flatten(a, aDefs);
    if (fb.types && fa.types && fb.types !== fa.types) {
      return [{ kind: 'type-changed', path: '', detail: `${fb.types} → ${fa.types}` }];
    }
    if (fb.enumValues && fa.enumValues) {
      for (const v of [...fb.enumValues].sort()) {
        if (!fa.enumValues.has(v)) findings.push({ kind: 'enum-value-removed', path: '', detail: v });
      }
      for (const v of [...fa.enumValues].sort()) {
        if (!fb.enumValues.has(v)) findings.push({ kind: 'enum-value-added', path: '', detail: v });
      }
    }
    const names = [...new Set([...fb.properties.keys(), ...fa.properties.keys()])].sort();
    for (const name of names) {
      const inBefore = fb.properties.has(name);
      const inAfter = fa.properties.has(name);
      if (inBefore && !inAfter) {
        findings.push({ kind: 'property-removed', path: name, detail: name });
        continue;
      }
      if (!inBefore && inAfter) {
        findings.push({ kind: 'property-added', path: name, detail: name, required: fa.required.has(name) });
        continue;
      }
      const wasRequired = fb.required.has(name);
      const isRequired = fa.required.has(name);
      if (!wasRequired && isRequired) findings.push({ kind: 'became-required', path: name, detail: name });
      if (wasRequired && !isRequired) findings.push({ kind: 'became-optional', path: name, detail: name });
      const sub = this.compare(fb.properties.get(name), bDefs, fa.properties.get(name), aDefs, depth + 1);
      for (const f of sub) findings.push({ ...f, path: prefixed(name, f.path) });
    }
    if (fb.items !== undefined && fa.items !== undefined) {
      const sub = this.compare(fb.items, bDefs, fa.items, aDefs, depth + 1);
      for (const f of sub) findings.push({ ...f, path: prefixed('[]', f.path) });
    }
    return findings;
  }
}

/** One-off comparison (no sharing across endpoints). */
export function diffSchemas(
  before: unknown,
  beforeDefs: Defs,
  after: unknown,
  afterDefs: Defs,
): SchemaFinding[] {
  return new SchemaDiffer().diff(before, beforeDefs, after, afterDefs);
}
