/**
 * The merge base of a tool file when svc kept no record of what it generated (a folder written
 * by an older svc, before .svc/generated.json). Field by field, a value in the file counts as
 * svc's own when some generator could have written it: it equals what a known generator makes
 * of the endpoint (`earlier`: today's rules and the first release's), or it is an older, shorter
 * cut of the description svc writes now. Those fields take the new generated value. Every other
 * difference is taken to be the user's and kept; its path is returned so the report can say
 * that it was kept for want of a record. Pure.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import { isKeyword, type JsonPath, sameJson } from './three-way.js';

export const NO_RECORD_REASON = 'kept your value: no record of what svc generated before';

export interface UnrecordedBase {
  base: Record<string, unknown>;
  /** Fields where the file differs from today's output and nothing shows svc wrote it. */
  unknown: JsonPath[];
}

function isDescription(path: JsonPath): boolean {
  return path[path.length - 1] === 'description' && (path.length === 1 || isKeyword(path));
}

function words(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/**
 * Whether `text` is what an older generator cut `whole` to: the same words (spacing aside), or
 * a start of it that ends a sentence or is marked cut with an ellipsis (older svc kept a
 * property's first sentence and capped a tool's description).
 */
export function isOlderCut(text: string, whole: string): boolean {
  const trimmed = text.trimEnd();
  const marked = trimmed.endsWith('…');
  const cut = words(marked ? trimmed.slice(0, -1) : trimmed);
  const full = words(whole);
  if (cut.length === 0) return false;
  if (cut === full) return true;
  if (!full.startsWith(cut)) return false;
  return marked || /[.!?:]$/.test(cut);
}

/**
 * `ours` and `theirs` are the file's and today's mergeable fields, `earlier` the same tool as
 * known generators write it for the endpoint the file was made from (may be empty), `atomic`
 * the paths merged as one value.
 */
export function unrecordedBase(
  ours: Record<string, unknown>,
  theirs: Record<string, unknown>,
  earlier: readonly Record<string, unknown>[],
  atomic: (path: JsonPath) => boolean,
): UnrecordedBase {
  const unknown: JsonPath[] = [];
  const walk = (path: JsonPath, o: unknown, t: unknown, cs: readonly unknown[]): unknown => {
    if (isPlainObject(o) && isPlainObject(t) && !atomic(path)) {
      const out: Record<string, unknown> = {};
      for (const k of new Set([...Object.keys(o), ...Object.keys(t)])) {
        const v = walk(
          [...path, k],
          o[k],
          t[k],
          cs.map((c) => (isPlainObject(c) ? c[k] : undefined)),
        );
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    if (sameJson(o, t)) return o;
    // A list of schemas (anyOf, oneOf, prefixItems) merges whole: it is svc's when each item is.
    if (Array.isArray(o) && Array.isArray(t) && o.length === t.length && o.some(isPlainObject)) {
      const before = unknown.length;
      o.forEach((item, i) => {
        walk(
          [...path, String(i)],
          item,
          t[i],
          cs.map((c) => (Array.isArray(c) ? c[i] : undefined)),
        );
      });
      const found = unknown.splice(before);
      if (found.length === 0) return o;
    }
    // The file was matched to today's tool by its endpoint (or operation): which one it calls is the API's.
    if (path.length === 1 && path[0] === 'endpoint') return o;
    // No svc before .svc/generated.json wrote a tool title: a file without one is as svc left it.
    if (o === undefined && path.length === 1 && path[0] === 'title') return o;
    // svc wrote it (or, both absent, never wrote it): today's value replaces it.
    if (cs.some((c) => sameJson(c, o))) return o;
    if (
      typeof o === 'string' &&
      isDescription(path) &&
      [t, ...cs].some((w) => typeof w === 'string' && isOlderCut(o, w))
    )
      return o;
    // A requirement the API adds must arrive (one the file lacks cannot be a valid edit); one
    // the file adds is the user's.
    if (path[path.length - 1] === 'required' && Array.isArray(o) && Array.isArray(t)) {
      if (o.some((x) => !t.some((y) => sameJson(x, y)))) unknown.push(path);
      return o.filter((x) => t.some((y) => sameJson(x, y)));
    }
    unknown.push(path);
    // The user's value stands against today's; against an older generator's value that the
    // API has since changed, the merge's conflict policy decides (and reports).
    return cs.length > 0 ? cs[0] : t;
  };
  const base = walk([], ours, theirs, earlier) as Record<string, unknown>;
  return { base, unknown };
}
