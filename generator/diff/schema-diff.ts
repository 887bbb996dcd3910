/**
 * Structural comparison of two JSON Schemas, each read in the scope of its own endpoint's
 * `defs`. It reports what a caller can notice (types, properties, required-ness, enum values,
 * every validation keyword, alternatives, defaults, deprecation), not wording. Findings are
 * neutral about who suffers: a constraint is "tightened" (fewer values valid) or "loosened"
 * (more values valid), a type "wider" or "narrower"; the caller (diff-endpoints) decides what a
 * finding means for a request or a response. The side matters only for `readOnly`/`writeOnly`:
 * a readOnly property is not part of a request, a writeOnly one not part of a response.
 * Cycles and deep nesting are cut off, so any pair of schemas finishes quickly.
 */
export type SchemaFindingKind =
  | 'type-changed'
  | 'property-added'
  | 'property-removed'
  | 'became-required'
  | 'became-optional'
  | 'enum-value-added'
  | 'enum-value-removed'
  | 'constraint'
  | 'default-changed'
  | 'deprecated'
  | 'became-read-only'
  | 'became-write-only'
  | 'alternative-added'
  | 'alternative-removed';

/** The keywords a 'constraint' finding names, as rule-id fragments. */
export const CONSTRAINT_KEYWORDS = {
  'max-length': 'maxLength',
  'min-length': 'minLength',
  maximum: 'maximum',
  minimum: 'minimum',
  'exclusive-maximum': 'exclusiveMaximum',
  'exclusive-minimum': 'exclusiveMinimum',
  'max-items': 'maxItems',
  'min-items': 'minItems',
  'unique-items': 'uniqueItems',
  pattern: 'pattern',
  'multiple-of': 'multipleOf',
  'max-properties': 'maxProperties',
  'min-properties': 'minProperties',
  format: 'format',
  const: 'const',
  'additional-properties': 'additionalProperties',
  not: 'not',
  'dependent-required': 'dependentRequired',
  'prefix-items': 'prefixItems',
  contains: 'contains',
  'unevaluated-properties': 'unevaluatedProperties',
  conditional: 'if/then/else',
  'property-names': 'propertyNames',
  'one-of': 'oneOf/anyOf',
  'unevaluated-items': 'unevaluatedItems',
  'content-media-type': 'contentMediaType',
  'content-encoding': 'contentEncoding',
} as const;
export type ConstraintKeyword = keyof typeof CONSTRAINT_KEYWORDS;

export type Side = 'request' | 'response';

export interface SchemaFinding {
  kind: SchemaFindingKind;
  /** Dotted property path from the root ("" for the root itself), "[]" for array items. */
  path: string;
  detail: string;
  /** property-added: whether the new property is required. */
  required?: boolean;
  /** type-changed: how the set of accepted types moved. */
  relation?: 'wider' | 'narrower' | 'other';
  /** constraint: which keyword, and which way the set of valid values moved. */
  keyword?: ConstraintKeyword;
  direction?: 'tightened' | 'loosened';
}

type Obj = Record<string, unknown>;

/**
 * An endpoint's defs with its contract's own over them (diff-endpoints.ts allDefs), looked up as
 * one object holding both (the contract's winning) would be, without copying either: Stripe's
 * endpoints carry hundreds of defs on each side, and copying them took a quarter of its svc diff.
 */
export class LayeredDefs {
  constructor(
    readonly top: Obj,
    readonly below: Obj,
  ) {}
}

/** The defs a schema is read in: one object, or two layered. */
export type Defs = Obj | LayeredDefs | undefined;

/** The def of this name (what `{ ...below, ...top }[name]` would be for layered defs). */
export function defAt(defs: Defs, name: string): unknown {
  if (defs instanceof LayeredDefs) return Object.hasOwn(defs.top, name) ? defs.top[name] : defs.below[name];
  return defs?.[name];
}

const MAX_DEPTH = 8;
const MAX_REF_HOPS = 32;

function isObj(value: unknown): value is Obj {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const refNames = new Map<string, string>();

/** The def name a `#/$defs/Name` reference points at, decoded once per reference. */
function refName(ref: string): string {
  let name = refNames.get(ref);
  if (name === undefined) {
    try {
      name = decodeURIComponent(ref.slice(ref.lastIndexOf('/') + 1));
    } catch {
      name = ref.slice(ref.lastIndexOf('/') + 1);
    }
    name = name.replace(/~1/g, '/').replace(/~0/g, '~');
    refNames.set(ref, name);
  }
  return name;
}

/** Follows `#/$defs/Name` (or any `#/.../Name`) references to a concrete schema. */
function resolve(schema: unknown, defs: Defs): { schema: Obj; ref?: string } {
  let current = schema;
  let ref: string | undefined;
  for (let hop = 0; hop < MAX_REF_HOPS && isObj(current) && typeof current.$ref === 'string'; hop++) {
    ref = current.$ref;
    current = defAt(defs, refName(ref));
  }
  if (current === false) return { schema: { not: {} }, ...(ref ? { ref } : {}) };
  return { schema: isObj(current) ? current : {}, ...(ref ? { ref } : {}) };
}

interface Flat {
  types?: Set<string>;
  properties: Map<string, unknown>;
  required: Set<string>;
  items?: unknown;
  enumValues?: Set<string>;
  /** The other keywords, first occurrence wins (allOf parts after the schema itself). */
  keywords: Map<string, unknown>;
  /** oneOf/anyOf branches of the schema itself (not of allOf parts). */
  alternatives?: unknown[];
  refs: string[];
}

const KEPT = new Set([
  'maxLength',
  'minLength',
  'maximum',
  'minimum',
  'exclusiveMaximum',
  'exclusiveMinimum',
  'maxItems',
  'minItems',
  'uniqueItems',
  'pattern',
  'multipleOf',
  'maxProperties',
  'minProperties',
  'format',
  'const',
  'additionalProperties',
  'not',
  'dependentRequired',
  'prefixItems',
  'contains',
  'minContains',
  'maxContains',
  'unevaluatedProperties',
  'unevaluatedItems',
  'contentMediaType',
  'contentEncoding',
  'if',
  'then',
  'else',
  'propertyNames',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

/** One view of a schema with allOf merged in, the way a validator would combine them. */
function flatten(schema: unknown, defs: Defs, memo?: WeakMap<object, Flat>): Flat {
  if (memo && typeof schema === 'object' && schema !== null) {
    let flat = memo.get(schema);
    if (!flat) {
      flat = flattenOnce(schema, defs);
      memo.set(schema, flat);
    }
    return flat;
  }
  return flattenOnce(schema, defs);
}

function flattenOnce(schema: unknown, defs: Defs): Flat {
  const flat: Flat = { properties: new Map(), required: new Set(), keywords: new Map(), refs: [] };
  const types = new Set<string>();
  let typed = false;
  const visit = (node: unknown, depth: number): void => {
    const { schema: s, ref } = resolve(node, defs);
    if (ref) {
      if (flat.refs.includes(ref) || depth > MAX_REF_HOPS) return;
      flat.refs.push(ref);
    }
    if (typeof s.type === 'string') {
      types.add(s.type);
      typed = true;
    } else if (Array.isArray(s.type)) {
      for (const t of s.type) if (typeof t === 'string') types.add(t);
      typed = true;
    }
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
    for (const key in s) if (KEPT.has(key) && !flat.keywords.has(key)) flat.keywords.set(key, s[key]);
    if (depth === 0) {
      const alts = Array.isArray(s.oneOf) ? s.oneOf : Array.isArray(s.anyOf) ? s.anyOf : undefined;
      if (alts && !flat.alternatives) flat.alternatives = alts;
    }
    if (Array.isArray(s.allOf)) for (const part of s.allOf) visit(part, depth + 1);
  };
  visit(schema, 0);
  if (!typed && types.size <= 1) {
    // Untyped: infer from the structure, the way readers do (`{properties}` is an object).
    if (flat.properties.size > 0) types.add('object');
    else if (flat.items !== undefined) types.add('array');
  }
  if (types.size > 0 && !(types.size === 1 && types.has('null') && !typed)) flat.types = types;
  return flat;
}

function join(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function prefixed(path: string, rel: string): string {
  if (rel === '') return path;
  if (rel.startsWith('[')) return `${path}${rel}`;
  return join(path, rel);
}

function typeLabel(types: Set<string>): string {
  return [...types].sort().join('|');
}

/** integer is a subset of number: a number type accepts every integer. */
function covers(outer: Set<string>, inner: Set<string>): boolean {
  for (const t of inner) if (!outer.has(t) && !(t === 'integer' && outer.has('number'))) return false;
  return true;
}

function show(value: unknown): string {
  if (value === undefined) return '(none)';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

/** Whether two JSON values are equal, key order aside (stored endpoints have sorted keys, fresh ones not). */
export function deepEqual(x: unknown, y: unknown): boolean {
  if (x === y) return true;
  if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return false;
  if (Array.isArray(x)) {
    if (!Array.isArray(y) || x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!deepEqual(x[i], y[i])) return false;
    return true;
  }
  if (Array.isArray(y)) return false;
  const kx = Object.keys(x);
  if (kx.length !== Object.keys(y).length) return false;
  for (const k of kx) {
    if (!Object.hasOwn(y, k)) return false;
    if (!deepEqual((x as Record<string, unknown>)[k], (y as Record<string, unknown>)[k])) return false;
  }
  return true;
}

const same = deepEqual;

/** Upper bounds: a smaller value (or a new bound) tightens. Lower bounds the other way. */
const UPPER: [ConstraintKeyword, string][] = [
  ['max-length', 'maxLength'],
  ['max-items', 'maxItems'],
  ['max-properties', 'maxProperties'],
];
const LOWER: [ConstraintKeyword, string][] = [
  ['min-length', 'minLength'],
  ['min-items', 'minItems'],
  ['min-properties', 'minProperties'],
];
/** Keywords that restrict when present: adding one tightens, removing one loosens, changing one may do both. */
const PRESENCE: [ConstraintKeyword, string[]][] = [
  ['pattern', ['pattern']],
  ['format', ['format']],
  ['const', ['const']],
  ['not', ['not']],
  ['property-names', ['propertyNames']],
  ['conditional', ['if', 'then', 'else']],
  ['contains', ['contains', 'minContains', 'maxContains']],
  // The content a string carries (2020-12 §8): a new one says what must be sent and what comes
  // back; another one (image/png → image/jpeg, base64 → base64url) breaks both readers and writers.
  ['content-media-type', ['contentMediaType']],
  ['content-encoding', ['contentEncoding']],
];

interface Bound {
  value: number;
  exclusive: boolean;
}

/** The effective lower (or upper) numeric bound of a schema: the stricter of the inclusive and exclusive one. */
function numericBound(k: Map<string, unknown>, upper: boolean): Bound | undefined {
  const inclusive = num(k.get(upper ? 'maximum' : 'minimum'));
  const exclusive = num(k.get(upper ? 'exclusiveMaximum' : 'exclusiveMinimum'));
  const a = inclusive === undefined ? undefined : { value: inclusive, exclusive: false };
  const b = exclusive === undefined ? undefined : { value: exclusive, exclusive: true };
  if (!a || !b) return a ?? b;
  return stricter(b, a, upper) || a.value === b.value ? b : a;
}

/** Whether bound x admits fewer values than y. */
function stricter(x: Bound, y: Bound, upper: boolean): boolean {
  if (x.value !== y.value) return upper ? x.value < y.value : x.value > y.value;
  return x.exclusive && !y.exclusive;
}

function boundText(b: Bound | undefined, upper: boolean): string {
  if (!b) return '(none)';
  return `${upper ? '<' : '>'}${b.exclusive ? '' : '='} ${b.value}`;
}

const WIDEST_FORMATS = new Set(['int64', 'double', 'float', 'number']);

function num(v: unknown): number | undefined {
  return typeof v === 'number' ? v : undefined;
}

/**
 * Compares schemas within one pair of documents. Component schemas are named, and a name
 * means one schema per document, so the findings for a pair of references are computed once
 * (per side) and reused by every endpoint that uses them: a 1,000-endpoint API sharing a large
 * `repository` schema is walked once, not a thousand times.
 */
export class SchemaDiffer {
  private readonly cache = new Map<string, SchemaFinding[]>();
  private readonly active = new Set<string>();
  /** Flattened schema nodes: a node belongs to one document, whose defs resolve it the same way every time. */
  private readonly flats = new WeakMap<object, Flat>();

  diff(
    before: unknown,
    beforeDefs: Defs,
    after: unknown,
    afterDefs: Defs,
    side: Side = 'response',
  ): SchemaFinding[] {
    return this.compare(before, beforeDefs, after, afterDefs, 0, side);
  }

  private compare(
    b: unknown,
    bDefs: Defs,
    a: unknown,
    aDefs: Defs,
    depth: number,
    side: Side,
  ): SchemaFinding[] {
    const bRef = isObj(b) && typeof b.$ref === 'string' ? b.$ref : undefined;
    const aRef = isObj(a) && typeof a.$ref === 'string' ? a.$ref : undefined;
    if (bRef && aRef) {
      const key = `${side}\u0000${bRef}\u0000${aRef}`;
      const cached = this.cache.get(key);
      if (cached) return cached;
      // A cycle: the outer comparison of this pair reports what differs.
      if (this.active.has(key)) return [];
      this.active.add(key);
      const found = this.compareNode(b, bDefs, a, aDefs, 0, side);
      this.active.delete(key);
      this.cache.set(key, found);
      return found;
    }
    if (depth > MAX_DEPTH) return [];
    // Most inline schemas (a parameter's `{type: string}`, a response's `{type: array, items:
    // {$ref}}`) are the same on both sides, up to references whose comparison found nothing.
    if (this.unchanged(b, bDefs, a, aDefs, side)) return [];
    return this.compareNode(b, bDefs, a, aDefs, depth, side);
  }

  /**
   * Equal JSON, where a `$ref` on both sides counts as equal when it names the same schema and
   * the (cached) comparison of that pair found nothing: nothing below can differ. Far cheaper
   * than flattening both sides to find no change, which is what most endpoints of an upgrade are.
   */
  private unchanged(x: unknown, xDefs: Defs, y: unknown, yDefs: Defs, side: Side): boolean {
    if (typeof x !== 'object' || typeof y !== 'object' || x === null || y === null) return x === y;
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false;
      for (let i = 0; i < x.length; i++) if (!this.unchanged(x[i], xDefs, y[i], yDefs, side)) return false;
      return true;
    }
    if (Array.isArray(y)) return false;
    const ox = x as Obj;
    const oy = y as Obj;
    const kx = Object.keys(ox);
    if (kx.length !== Object.keys(oy).length) return false;
    for (const k of kx) {
      if (!Object.hasOwn(oy, k)) return false;
      if (k === '$ref') {
        if (ox.$ref !== oy.$ref || typeof ox.$ref !== 'string') return false;
        continue;
      }
      if (!this.unchanged(ox[k], xDefs, oy[k], yDefs, side)) return false;
    }
    // Only a bare reference is settled by its cached pair comparison (siblings of $ref were equal above).
    if (typeof ox.$ref === 'string' && kx.length === 1)
      return this.compare(ox, xDefs, oy, yDefs, 0, side).length === 0;
    return typeof ox.$ref !== 'string';
  }

  private compareNode(
    b: unknown,
    bDefs: Defs,
    a: unknown,
    aDefs: Defs,
    depth: number,
    side: Side,
  ): SchemaFinding[] {
    const findings: SchemaFinding[] = [];
    const fb = flatten(b, bDefs, this.flats);
    const fa = flatten(a, aDefs, this.flats);
    const wrapper = (f: Flat) =>
      f.alternatives !== undefined && f.properties.size === 0 && f.items === undefined;
    if ((fb.alternatives && fa.alternatives) || wrapper(fb) || wrapper(fa)) {
      this.compareAlternatives(b, fb, bDefs, a, fa, aDefs, depth, side, findings);
      // A plain schema wrapped in (or unwrapped from) oneOf/anyOf: the branches said it all.
      if (wrapper(fb) || wrapper(fa)) return findings;
    } else if (fb.alternatives || fa.alternatives) {
      // oneOf/anyOf beside an object's own properties (one of several required sets) restricts it.
      const detail = `oneOf/anyOf ${fb.alternatives ? `${fb.alternatives.length} branches` : '(none)'} → ${fa.alternatives ? `${fa.alternatives.length} branches` : '(none)'}`;
      findings.push({
        kind: 'constraint',
        path: '',
        keyword: 'one-of',
        direction: fa.alternatives ? 'tightened' : 'loosened',
        detail,
      });
    }
    if (fb.types && fa.types && typeLabel(fb.types) !== typeLabel(fa.types)) {
      const wider = covers(fa.types, fb.types);
      const narrower = covers(fb.types, fa.types);
      const relation = wider ? 'wider' : narrower ? 'narrower' : 'other';
      const detail = `${typeLabel(fb.types)} → ${typeLabel(fa.types)}`;
      findings.push({ kind: 'type-changed', path: '', detail, relation });
      // Nothing below a changed type is comparable, unless only null or integer/number moved.
      if (relation === 'other') return findings;
    }
    if (fb.enumValues && fa.enumValues) {
      for (const v of [...fb.enumValues].sort()) {
        if (!fa.enumValues.has(v)) findings.push({ kind: 'enum-value-removed', path: '', detail: v });
      }
      for (const v of [...fa.enumValues].sort()) {
        if (!fb.enumValues.has(v)) findings.push({ kind: 'enum-value-added', path: '', detail: v });
      }
    } else if (fa.enumValues && !fb.enumValues) {
      findings.push({
        kind: 'enum-value-removed',
        path: '',
        detail: `any value but ${[...fa.enumValues].join(', ')}`,
      });
    } else if (fb.enumValues && !fa.enumValues) {
      findings.push({ kind: 'enum-value-added', path: '', detail: 'any value' });
    }
    this.compareKeywords(fb, fa, side, findings);
    const hidden = side === 'request' ? 'readOnly' : 'writeOnly';
    const visible = (flat: Flat, name: string) => {
      const { schema } = resolve(flat.properties.get(name), flat === fb ? bDefs : aDefs);
      return schema[hidden] !== true;
    };
    const names = [...new Set([...fb.properties.keys(), ...fa.properties.keys()])].sort();
    for (const name of names) {
      const inBefore = fb.properties.has(name) && visible(fb, name);
      const inAfter = fa.properties.has(name) && visible(fa, name);
      if (inBefore && !inAfter && fa.properties.has(name)) {
        findings.push({
          kind: side === 'request' ? 'became-read-only' : 'became-write-only',
          path: name,
          detail: name,
        });
        continue;
      }
      if (inBefore && !inAfter) {
        findings.push({ kind: 'property-removed', path: name, detail: name });
        continue;
      }
      if (!inBefore && inAfter) {
        findings.push({ kind: 'property-added', path: name, detail: name, required: fa.required.has(name) });
        continue;
      }
      if (!inBefore || !inAfter) continue;
      const wasRequired = fb.required.has(name);
      const isRequired = fa.required.has(name);
      if (!wasRequired && isRequired) findings.push({ kind: 'became-required', path: name, detail: name });
      if (wasRequired && !isRequired) findings.push({ kind: 'became-optional', path: name, detail: name });
      const sub = this.compare(
        fb.properties.get(name),
        bDefs,
        fa.properties.get(name),
        aDefs,
        depth + 1,
        side,
      );
      for (const f of sub) findings.push({ ...f, path: prefixed(name, f.path) });
    }
    if (fb.items !== undefined && fa.items !== undefined) {
      const sub = this.compare(fb.items, bDefs, fa.items, aDefs, depth + 1, side);
      for (const f of sub) findings.push({ ...f, path: prefixed('[]', f.path) });
    }
    return findings;
  }

  private compareKeywords(fb: Flat, fa: Flat, side: Side, out: SchemaFinding[]): void {
    const kb = fb.keywords;
    const ka = fa.keywords;
    if (kb.size === 0 && ka.size === 0) return;
    // Most schemas carry a keyword or two: look only at the ones either side has, unless they are all the same.
    let differs = kb.size !== ka.size;
    if (!differs) {
      for (const [key, value] of kb) {
        const other = ka.get(key);
        if (other === value) continue;
        if (
          other === undefined ||
          typeof value !== 'object' ||
          typeof other !== 'object' ||
          !same(value, other)
        ) {
          differs = true;
          break;
        }
      }
    }
    if (!differs) return;
    // A change that is neither (a new pattern for an old one) may refuse what was valid and
    // allow what was not: in a request that is a tightening, in a response a loosening.
    const either = side === 'request' ? 'tightened' : 'loosened';
    const push = (keyword: ConstraintKeyword, direction: 'tightened' | 'loosened', detail: string) =>
      out.push({ kind: 'constraint', path: '', keyword, direction, detail });
    for (const [keyword, key] of UPPER) {
      const before = num(kb.get(key));
      const after = num(ka.get(key));
      if (before === after) continue;
      const tightened = after !== undefined && (before === undefined || after < before);
      push(keyword, tightened ? 'tightened' : 'loosened', `${key} ${show(before)} → ${show(after)}`);
    }
    for (const [keyword, key] of LOWER) {
      const before = num(kb.get(key));
      const after = num(ka.get(key));
      if (before === after) continue;
      const tightened = after !== undefined && (before === undefined || after > before);
      push(keyword, tightened ? 'tightened' : 'loosened', `${key} ${show(before)} → ${show(after)}`);
    }
    // minimum and exclusiveMinimum make one bound (so do the maximums): `> 0` becoming `>= 0` loosens it.
    for (const upper of [false, true]) {
      const before = numericBound(kb, upper);
      const after = numericBound(ka, upper);
      if (!before && !after) continue;
      if (before && after && before.value === after.value && before.exclusive === after.exclusive) continue;
      const tightened = after !== undefined && (before === undefined || stricter(after, before, upper));
      const source = tightened ? after! : before!;
      const keyword: ConstraintKeyword = upper
        ? source.exclusive
          ? 'exclusive-maximum'
          : 'maximum'
        : source.exclusive
          ? 'exclusive-minimum'
          : 'minimum';
      push(
        keyword,
        tightened ? 'tightened' : 'loosened',
        `${boundText(before, upper)} → ${boundText(after, upper)}`,
      );
    }
    const ub = kb.get('uniqueItems') === true;
    const ua = ka.get('uniqueItems') === true;
    if (ub !== ua) push('unique-items', ua ? 'tightened' : 'loosened', `uniqueItems ${ub} → ${ua}`);
    const mb = num(kb.get('multipleOf'));
    const ma = num(ka.get('multipleOf'));
    if (mb !== ma) {
      const detail = `multipleOf ${show(mb)} → ${show(ma)}`;
      if (ma === undefined) push('multiple-of', 'loosened', detail);
      else if (mb === undefined || Number.isInteger(ma / mb)) push('multiple-of', 'tightened', detail);
      else if (Number.isInteger(mb / ma)) push('multiple-of', 'loosened', detail);
      else push('multiple-of', either, detail);
    }
    for (const [keyword, keys] of PRESENCE) {
      if (!keys.some((k) => kb.has(k) || ka.has(k))) continue;
      const before = keys.map((k) => kb.get(k));
      const after = keys.map((k) => ka.get(k));
      // int64, float and double name the range every JSON number has already: saying so restricts nothing.
      if (keyword === 'format') {
        if (WIDEST_FORMATS.has(before[0] as string)) before[0] = undefined;
        if (WIDEST_FORMATS.has(after[0] as string)) after[0] = undefined;
      }
      if (same(before, after)) continue;
      const had = before.some((v) => v !== undefined);
      const has = after.some((v) => v !== undefined);
      const label = keys.length === 1 ? keys[0] : CONSTRAINT_KEYWORDS[keyword];
      const detail = `${label} ${show(had ? (before.length === 1 ? before[0] : before) : undefined)} → ${show(has ? (after.length === 1 ? after[0] : after) : undefined)}`;
      push(keyword, !had ? 'tightened' : !has ? 'loosened' : either, detail);
    }
    // additionalProperties / unevaluatedProperties / unevaluatedItems: false closes the object
    // (or the array's tail), a schema restricts it.
    for (const [keyword, key] of [
      ['additional-properties', 'additionalProperties'],
      ['unevaluated-properties', 'unevaluatedProperties'],
      ['unevaluated-items', 'unevaluatedItems'],
    ] as const) {
      const before = openness(kb.get(key));
      const after = openness(ka.get(key));
      if (before === after && (before !== 1 || same(kb.get(key), ka.get(key)))) continue;
      const detail = `${key} ${show(kb.get(key))} → ${show(ka.get(key))}`;
      push(keyword, after < before ? 'tightened' : after > before ? 'loosened' : either, detail);
    }
    const db = kb.get('dependentRequired');
    const da = ka.get('dependentRequired');
    if ((db !== undefined || da !== undefined) && !same(db, da)) {
      const pairs = (v: unknown) =>
        new Set(
          isObj(v)
            ? Object.entries(v).flatMap(([k, list]) =>
                Array.isArray(list) ? list.map((x) => `${k}>${String(x)}`) : [],
              )
            : [],
        );
      const pb = pairs(db);
      const pa = pairs(da);
      const added = [...pa].some((p) => !pb.has(p));
      const removed = [...pb].some((p) => !pa.has(p));
      if (added || removed)
        push(
          'dependent-required',
          added && !removed ? 'tightened' : !added ? 'loosened' : either,
          `dependentRequired ${show(db)} → ${show(da)}`,
        );
    }
    const pb = kb.get('prefixItems');
    const pa = ka.get('prefixItems');
    if ((pb !== undefined || pa !== undefined) && !same(pb, pa)) {
      const lb = Array.isArray(pb) ? pb.length : 0;
      const la = Array.isArray(pa) ? pa.length : 0;
      const detail = `prefixItems ${lb} → ${la} positions`;
      push(
        'prefix-items',
        la > lb && same(pb, Array.isArray(pa) ? pa.slice(0, lb) : pa)
          ? 'tightened'
          : la < lb && same(pa, Array.isArray(pb) ? pb.slice(0, la) : pb)
            ? 'loosened'
            : either,
        detail,
      );
    }
    const defb = kb.get('default');
    const defa = ka.get('default');
    if (!same(defb, defa) && (defb !== undefined || defa !== undefined))
      out.push({ kind: 'default-changed', path: '', detail: `default ${show(defb)} → ${show(defa)}` });
    if (kb.get('deprecated') !== true && ka.get('deprecated') === true)
      out.push({ kind: 'deprecated', path: '', detail: 'deprecated' });
  }

  /**
   * oneOf/anyOf on either side: branches are paired (same $ref, else same type and most shared
   * properties); an unpaired new branch means more shapes are valid, an unpaired old one fewer.
   * A plain schema counts as one branch, so wrapping it in oneOf is "an alternative added", not
   * "every property removed".
   */
  private compareAlternatives(
    b: unknown,
    fb: Flat,
    bDefs: Defs,
    a: unknown,
    fa: Flat,
    aDefs: Defs,
    depth: number,
    side: Side,
    out: SchemaFinding[],
  ): void {
    const before = fb.alternatives ?? [b];
    const after = fa.alternatives ?? [a];
    const used = new Set<number>();
    const pairs: [unknown, unknown][] = [];
    const unmatched: unknown[] = [];
    const refOf = (s: unknown) => (isObj(s) && typeof s.$ref === 'string' ? s.$ref : undefined);
    for (const x of before) {
      let best = -1;
      let bestScore = -1;
      after.forEach((y, i) => {
        if (used.has(i)) return;
        const score = similarity(x, bDefs, y, aDefs, refOf, this.flats);
        if (score > bestScore) {
          best = i;
          bestScore = score;
        }
      });
      if (best >= 0 && bestScore > 0) {
        used.add(best);
        pairs.push([x, after[best]]);
      } else unmatched.push(x);
    }
    for (const x of unmatched)
      out.push({ kind: 'alternative-removed', path: '', detail: branchLabel(x, bDefs, this.flats) });
    after.forEach((y, i) => {
      if (!used.has(i))
        out.push({ kind: 'alternative-added', path: '', detail: branchLabel(y, aDefs, this.flats) });
    });
    for (const [x, y] of pairs) {
      // The wrapper itself is no branch: compare the plain side's own keywords against the branch.
      out.push(...this.compare(x, bDefs, y, aDefs, depth + 1, side));
    }
  }
}

function openness(v: unknown): number {
  if (v === false) return 0;
  if (v === undefined || v === true || (isObj(v) && Object.keys(v).length === 0)) return 2;
  return 1;
}

function branchLabel(s: unknown, defs: Defs, memo: WeakMap<object, Flat>): string {
  if (isObj(s) && typeof s.$ref === 'string') return s.$ref.slice(s.$ref.lastIndexOf('/') + 1);
  const flat = flatten(s, defs, memo);
  if (flat.properties.size > 0) return `{${[...flat.properties.keys()].slice(0, 4).join(', ')}}`;
  return flat.types ? typeLabel(flat.types) : 'a schema';
}

function similarity(
  x: unknown,
  xDefs: Defs,
  y: unknown,
  yDefs: Defs,
  refOf: (s: unknown) => string | undefined,
  memo: WeakMap<object, Flat>,
): number {
  const rx = refOf(x);
  const ry = refOf(y);
  if (rx && ry && rx === ry) return 1000;
  const fx = flatten(x, xDefs, memo);
  const fy = flatten(y, yDefs, memo);
  const tx = fx.types ? typeLabel(fx.types) : '';
  const ty = fy.types ? typeLabel(fy.types) : '';
  let score = tx === ty || !tx || !ty ? 1 : 0;
  if (score === 0 && fx.types && fy.types && (covers(fx.types, fy.types) || covers(fy.types, fx.types)))
    score = 1;
  if (score === 0) return 0;
  for (const name of fx.properties.keys()) if (fy.properties.has(name)) score += 2;
  if (fx.properties.size > 0 && fy.properties.size > 0 && score === 1) return 0;
  return score;
}

/** One-off comparison (no sharing across endpoints). */
export function diffSchemas(
  before: unknown,
  beforeDefs: Defs,
  after: unknown,
  afterDefs: Defs,
  side: Side = 'response',
): SchemaFinding[] {
  return new SchemaDiffer().diff(before, beforeDefs, after, afterDefs, side);
}
