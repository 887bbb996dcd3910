/**
 * A three-way merge of JSON values: base (what the generator produced last time), ours (the
 * file as people left it) and theirs (what the generator produces now). Where only one side
 * moved away from base, that side wins; objects merge key by key (in ours' key order, so a
 * reordering survives); arrays of set-like keywords (`required`, `enum`, `type`) merge as sets.
 * What is left is a real conflict, which the caller's policy settles. Pure.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import { sameJson } from '../../core/canonical-json.js';

export type JsonPath = readonly string[];

export interface Conflict {
  path: JsonPath;
  /** undefined: the key is absent on that side. */
  base: unknown;
  ours: unknown;
  theirs: unknown;
}

export interface Resolution {
  /** Whose side wins: ours is a kept edit, theirs a reset one. */
  take: 'ours' | 'theirs';
  /** Why, for the report (a reset always has one). */
  reason?: string;
  /** The value to write when it is neither side as it is (an edited list cut to what is still valid). */
  value?: unknown;
}

export type ConflictPolicy = (conflict: Conflict) => Resolution;

export interface SettledConflict extends Conflict {
  take: 'ours' | 'theirs';
  reason?: string;
  /** What was written. */
  result: unknown;
}

export interface MergeOutcome {
  value: unknown;
  conflicts: SettledConflict[];
}

/**
 * Keywords whose arrays are sets: an addition or removal on either side is merged item by item.
 * (`enum` is not one: a list the user narrowed must not grow with values upstream adds.)
 */
const SET_KEYWORDS = new Set(['required', 'type']);
/** Map-valued keywords: their keys are names (of properties, definitions, locations), not keywords. */
const NAME_MAPS = new Set([
  'properties',
  '$defs',
  'definitions',
  'patternProperties',
  'locations',
  'dependentSchemas',
]);

export { sameJson };

/** Whether the last segment of the path is a JSON Schema keyword (not a property or definition name). */
export function isKeyword(path: JsonPath): boolean {
  if (path.length === 0) return false;
  return path.length === 1 || !NAME_MAPS.has(path[path.length - 2]!);
}

function isSetArray(path: JsonPath, ...values: unknown[]): boolean {
  if (!isKeyword(path) || !SET_KEYWORDS.has(path[path.length - 1]!)) return false;
  return values.every(
    (v) => v === undefined || (Array.isArray(v) && v.every((x) => x === null || typeof x !== 'object')),
  );
}

/** Keywords whose arrays hold subschemas, one per position. */
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

/**
 * Arrays of subschemas merged position by position: only when all three sides have the same
 * number of subschemas (an alternative added or removed upstream is a change of the whole list).
 */
function isSchemaList(path: JsonPath, b: unknown, o: unknown, t: unknown): b is unknown[] {
  if (!isKeyword(path) || !SCHEMA_LISTS.has(path[path.length - 1]!)) return false;
  if (!Array.isArray(b) || !Array.isArray(o) || !Array.isArray(t)) return false;
  return b.length === o.length && o.length === t.length;
}

function mergeSet(base: unknown[] | undefined, ours: unknown[], theirs: unknown[]): unknown[] {
  const key = (x: unknown) => JSON.stringify(x);
  const inBase = new Set((base ?? []).map(key));
  const inOurs = new Set(ours.map(key));
  const inTheirs = new Set(theirs.map(key));
  const kept = ours.filter((x) => !(inBase.has(key(x)) && !inTheirs.has(key(x))));
  const added = theirs.filter((x) => !inBase.has(key(x)) && !inOurs.has(key(x)));
  return [...kept, ...added];
}

/** Ours' keys in ours' order; a key only theirs has goes after its predecessor in theirs. */
function keyOrder(ours: Record<string, unknown>, theirs: Record<string, unknown>): string[] {
  const keys = Object.keys(ours);
  let previous: string | undefined;
  for (const k of Object.keys(theirs)) {
    if (!(k in ours)) {
      const at = previous === undefined ? 0 : keys.indexOf(previous) + 1;
      keys.splice(at, 0, k);
    }
    previous = k;
  }
  return keys;
}

export function mergeThreeWay(
  base: unknown,
  ours: unknown,
  theirs: unknown,
  policy: ConflictPolicy,
  /** Objects merged as one value (a conflict anywhere inside is a conflict of the whole). */
  atomic: (path: JsonPath) => boolean = () => false,
): MergeOutcome {
  const conflicts: SettledConflict[] = [];
  const walk = (p: JsonPath, b: unknown, o: unknown, t: unknown): unknown => {
    if (isPlainObject(o) && isPlainObject(t) && (b === undefined || isPlainObject(b)) && !atomic(p)) {
      const out: Record<string, unknown> = {};
      for (const k of keyOrder(o, t)) {
        const v = walk([...p, k], b?.[k], o[k], t[k]);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    if (sameJson(o, t)) return o;
    if (sameJson(o, b)) return t;
    if (sameJson(t, b)) return o;
    if (isSchemaList(p, b, o, t) && !atomic(p)) {
      // Subschemas of oneOf/anyOf/allOf/prefixItems, position by position: an edit inside one
      // alternative and an upstream change elsewhere (a description) are not a conflict.
      const theirs = t as unknown[];
      return (o as unknown[]).map((item, i) => walk([...p, String(i)], b[i], item, theirs[i]));
    }
    if (Array.isArray(o) && Array.isArray(t) && isSetArray(p, b, o, t)) {
      return mergeSet(b as unknown[] | undefined, o, t);
    }
    const conflict: Conflict = { path: p, base: b, ours: o, theirs: t };
    const r = policy(conflict);
    const result = 'value' in r ? r.value : r.take === 'ours' ? o : t;
    conflicts.push({ ...conflict, take: r.take, ...(r.reason ? { reason: r.reason } : {}), result });
    return result;
  };
  return { value: walk([], base, ours, theirs), conflicts };
}
