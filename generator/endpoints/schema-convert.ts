/**
 * Converts OpenAPI 3.0 / 3.1 and Swagger 2.0 Schema Objects to JSON Schema 2020-12.
 *
 * Every schema $ref becomes `#/$defs/<Name>`: component schemas keep their (sanitized) name,
 * any other referenced location gets a name derived from its pointer. A referenced schema is
 * converted once per document and shared; conversion never follows a $ref, so circular
 * schemas stay finite. Only JSON Schema keywords survive (no example/xml/discriminator/x-*),
 * and values a validator would refuse to compile (a boolean `required`, an invalid regexp
 * `pattern`) are dropped rather than passed on.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import { resolvePointer } from '../parse/index.js';
import type { SpecVersion } from '../parse/index.js';

export type JsonSchema = Record<string, unknown> | boolean;

const SCHEMA_MAP_KEYS = ['properties', 'patternProperties', 'dependentSchemas', '$defs'] as const;
const SCHEMA_KEYS = [
  'additionalProperties',
  'propertyNames',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'unevaluatedProperties',
  'unevaluatedItems',
] as const;
const SCHEMA_LIST_KEYS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'] as const;
const NUMBER_KEYS = ['minimum', 'maximum', 'multipleOf'] as const;
const COUNT_KEYS = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
] as const;
const STRING_KEYS = ['format', 'description', 'contentMediaType', 'contentEncoding'] as const;
const BOOLEAN_KEYS = ['uniqueItems', 'readOnly', 'writeOnly', 'deprecated'] as const;
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object', 'null']);

// Most schema nodes carry two or three keys; one pass over a node's own keys tells which of
// the keyword groups below are worth looking up at all (the output order stays the same).
const STRINGS = 1;
const NUMBERS = 2;
const COUNTS = 4;
const BOOLEANS = 8;
const MAPS = 16;
const SUBSCHEMAS = 32;
const LISTS = 64;
const GROUP_OF = new Map<string, number>([
  ...STRING_KEYS.map((k) => [k, STRINGS] as const),
  ...NUMBER_KEYS.map((k) => [k, NUMBERS] as const),
  ...COUNT_KEYS.map((k) => [k, COUNTS] as const),
  ...BOOLEAN_KEYS.map((k) => [k, BOOLEANS] as const),
  ...SCHEMA_MAP_KEYS.map((k) => [k, MAPS] as const),
  ...SCHEMA_KEYS.map((k) => [k, SUBSCHEMAS] as const),
  ...SCHEMA_LIST_KEYS.map((k) => [k, LISTS] as const),
]);

export const DEFS_PREFIX = '#/$defs/';

export class SchemaConverter {
  /** Converted referenced schemas by $defs name. */
  readonly defs = new Map<string, JsonSchema>();
  /** Direct $defs references of each converted def. */
  private readonly defRefs = new Map<string, string[]>();
  private readonly nameByRef = new Map<string, string>();
  private readonly usedNames = new Set<string>();
  private readonly componentPrefix: string;

  constructor(
    private readonly document: Record<string, unknown>,
    private readonly version: SpecVersion,
  ) {
    this.componentPrefix = version === 'swagger-2.0' ? '#/definitions/' : '#/components/schemas/';
    this.reserveComponentNames();
  }

  /** Component names are assigned first, in sorted order, so a name never depends on use order. */
  private reserveComponentNames(): void {
    const holder =
      this.version === 'swagger-2.0'
        ? this.document.definitions
        : (this.document.components as Record<string, unknown> | undefined)?.schemas;
    if (!holder || typeof holder !== 'object') return;
    for (const name of Object.keys(holder).sort()) {
      const ref = this.componentPrefix + escapePointerSegment(name);
      this.nameByRef.set(ref, this.uniqueName(sanitizeName(name)));
    }
  }

  /** The $defs name of a component schema (by its name in the document), or of a `#/...` reference to one. */
  componentDefName(nameOrRef: string): string | undefined {
    const ref = nameOrRef.startsWith('#')
      ? normalizeRef(nameOrRef)
      : this.componentPrefix + escapePointerSegment(nameOrRef);
    return this.nameByRef.get(ref);
  }

  private uniqueName(base: string): string {
    let name = base;
    for (let i = 2; this.usedNames.has(name); i++) name = `${base}_${i}`;
    this.usedNames.add(name);
    return name;
  }

  /** The $defs name for a schema reference, converting the target on first use. */
  defName(ref: string): string | undefined {
    const key = normalizeRef(ref);
    let name = this.nameByRef.get(key);
    if (name === undefined) {
      if (resolvePointer(this.document, key) === undefined) return undefined;
      const segments = key.slice(2).split('/').map(unescapePointerSegment);
      const useful = segments.filter(
        (s) => !['components', 'schemas', 'definitions', 'properties'].includes(s),
      );
      name = this.uniqueName(sanitizeName(useful.join('_') || 'schema'));
      this.nameByRef.set(key, name);
    }
    if (!this.defs.has(name)) {
      // Placeholder first: a schema that refers to itself must find its own name taken.
      this.defs.set(name, true);
      const target = this.follow(key);
      const converted = this.convert(target);
      this.defs.set(name, converted);
      this.defRefs.set(name, collectDefRefs(converted));
    }
    return name;
  }

  /** Resolves a chain of $ref-only objects; returns the first real schema. */
  private follow(ref: string): unknown {
    let target = resolvePointer(this.document, ref);
    const seen = new Set<string>([ref]);
    while (isPlainObject(target) && typeof target.$ref === 'string' && Object.keys(target).length === 1) {
      const next = normalizeRef(target.$ref);
      if (seen.has(next)) return {};
      seen.add(next);
      target = resolvePointer(this.document, next);
    }
    return target ?? {};
  }

  /** Names of every def reachable from the given schemas, sorted. */
  closure(schemas: readonly unknown[]): string[] {
    const out = new Set<string>();
    const queue: string[] = [];
    for (const schema of schemas) for (const name of collectDefRefs(schema)) queue.push(name);
    while (queue.length > 0) {
      const name = queue.pop()!;
      if (out.has(name)) continue;
      out.add(name);
      for (const next of this.defRefs.get(name) ?? []) if (!out.has(next)) queue.push(next);
    }
    return [...out].sort();
  }

  convert(input: unknown): JsonSchema {
    if (typeof input === 'boolean') return input;
    if (!isPlainObject(input)) return {};
    const s = input;
    const out: Record<string, unknown> = {};
    if (typeof s.$ref === 'string') {
      const name = s.$ref.startsWith('#') ? this.defName(s.$ref) : undefined;
      if (name === undefined) return {};
      out.$ref = DEFS_PREFIX + name;
      // 3.1 allows siblings of $ref; 3.0 and 2.0 documents write a description beside one all
      // the same (Twilio, GitHub), and it is the only text saying what this use of the shared
      // shape means. Other siblings are left out: they would restate or contradict the target.
      if (typeof s.description === 'string' && s.description.trim()) out.description = s.description;
      return out;
    }
    let groups = 0;
    for (const key in s) groups |= GROUP_OF.get(key) ?? 0;
    let types = convertType(s.type, this.version);
    const nullable = s.nullable === true || s['x-nullable'] === true;
    if (s.type === 'file') out.format = 'binary';
    if (nullable && types !== undefined && !types.includes('null')) types = [...types, 'null'];
    if (types !== undefined) out.type = types.length === 1 ? types[0] : types;
    if (Array.isArray(s.enum) && s.enum.length > 0) {
      out.enum = nullable && !s.enum.includes(null) ? [...s.enum, null] : [...s.enum];
    }
    if (s.const !== undefined) out.const = s.const;
    if (s.default !== undefined) out.default = s.default;
    if (groups & STRINGS) for (const key of STRING_KEYS) if (typeof s[key] === 'string') out[key] = s[key];
    if (typeof s.pattern === 'string' && isValidPattern(s.pattern)) out.pattern = s.pattern;
    if (groups & NUMBERS) for (const key of NUMBER_KEYS) if (typeof s[key] === 'number') out[key] = s[key];
    if (typeof out.multipleOf === 'number' && out.multipleOf <= 0) delete out.multipleOf;
    if (groups & COUNTS) {
      for (const key of COUNT_KEYS) {
        const v = s[key];
        if (typeof v === 'number' && Number.isInteger(v) && v >= 0) out[key] = v;
      }
    }
    if (groups & BOOLEANS) for (const key of BOOLEAN_KEYS) if (s[key] === true) out[key] = true;
    // uniqueItems only means something for arrays (Kubernetes puts it on every string parameter).
    if (out.uniqueItems && types !== undefined && !types.includes('array')) delete out.uniqueItems;
    convertExclusive(s, out, 'exclusiveMinimum', 'minimum');
    convertExclusive(s, out, 'exclusiveMaximum', 'maximum');
    if (Array.isArray(s.required)) {
      const required = [...new Set(s.required.filter((r): r is string => typeof r === 'string'))];
      if (required.length > 0) out.required = required;
    }
    if (isPlainObject(s.dependentRequired)) out.dependentRequired = s.dependentRequired;
    for (const key of groups & MAPS ? SCHEMA_MAP_KEYS : []) {
      const map = s[key];
      if (!isPlainObject(map) || key === '$defs') continue;
      const converted: Record<string, JsonSchema> = {};
      for (const name of Object.keys(map)) converted[name] = this.convert(map[name]);
      out[key] = converted;
    }
    for (const key of groups & SUBSCHEMAS ? SCHEMA_KEYS : []) {
      const v = s[key];
      if (typeof v === 'boolean' || isPlainObject(v)) out[key] = this.convert(v);
    }
    for (const key of groups & LISTS ? SCHEMA_LIST_KEYS : []) {
      const list = s[key];
      if (Array.isArray(list) && list.length > 0) out[key] = list.map((item) => this.convert(item));
    }
    if (Array.isArray(s.items)) {
      // Draft 4 tuple form (not valid OpenAPI, but seen): the 2020-12 spelling is prefixItems.
      if (s.items.length > 0) out.prefixItems = s.items.map((item) => this.convert(item));
    } else if (typeof s.items === 'boolean' || isPlainObject(s.items)) {
      out.items = this.convert(s.items);
    }
    return out;
  }
}

function convertType(type: unknown, version: SpecVersion): string[] | undefined {
  if (type === 'file' && version === 'swagger-2.0') return ['string'];
  const list = Array.isArray(type) ? type : [type];
  const valid = [...new Set(list.filter((t): t is string => typeof t === 'string' && TYPES.has(t)))];
  return valid.length > 0 ? valid : undefined;
}

/** OpenAPI 3.0/Swagger: boolean exclusive flags modify minimum/maximum; 2020-12 wants the number. */
function convertExclusive(
  s: Record<string, unknown>,
  out: Record<string, unknown>,
  key: 'exclusiveMinimum' | 'exclusiveMaximum',
  bound: 'minimum' | 'maximum',
): void {
  const v = s[key];
  if (typeof v === 'number') out[key] = v;
  else if (v === true && typeof s[bound] === 'number') {
    out[key] = s[bound];
    delete out[bound];
  }
}

const patternCache = new Map<string, boolean>();
function isValidPattern(pattern: string): boolean {
  let ok = patternCache.get(pattern);
  if (ok === undefined) {
    try {
      new RegExp(pattern, 'u');
      ok = true;
    } catch {
      ok = false;
    }
    patternCache.set(pattern, ok);
  }
  return ok;
}

/** Names of the $defs a converted schema refers to directly (not through other defs). */
export function collectDefRefs(schema: unknown): string[] {
  const out = new Set<string>();
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (Array.isArray(node)) {
      for (const item of node) stack.push(item);
      continue;
    }
    const record = node as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const v = record[key];
      if (key === '$ref' && typeof v === 'string' && v.startsWith(DEFS_PREFIX))
        out.add(v.slice(DEFS_PREFIX.length));
      // enum/const/default hold data, not schemas.
      else if (key !== 'enum' && key !== 'const' && key !== 'default' && v !== null && typeof v === 'object')
        stack.push(v);
    }
  }
  return [...out];
}

/** $defs keys must be safe in a JSON pointer and in every consumer: letters, digits, `_ . -`. */
export function sanitizeName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^_+|_+$/g, '');
  return cleaned || 'schema';
}

function normalizeRef(ref: string): string {
  // "#/components/schemas/A%20B" and "#/components/schemas/A B" are the same place.
  try {
    return `#${decodeURI(ref.slice(1))}`;
  } catch {
    return ref;
  }
}

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function unescapePointerSegment(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
