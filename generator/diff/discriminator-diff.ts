/**
 * Discriminator changes of the component schemas an endpoint uses (issue 24). The property that
 * names a variant and the value → variant mapping are read by both ends: a caller writes the
 * value into a request, reads it from a response to pick the variant. So a renamed property
 * breaks either side; a value that names another variant breaks either side; a value removed
 * breaks a request (the caller's value no longer names a variant) and a value added breaks a
 * response (a variant callers cannot tell apart), each mirror image being info. The side of a
 * schema is where the endpoint uses it: the parameters and request body, or the responses and
 * callbacks (sent to the caller); a schema used on both sides is reported on both. A
 * discriminator written inline at the root of a request or response body is keyed by that body
 * (`#request[application/json]`, `#response/200[application/json]`).
 *
 * A discriminator added to or removed from a schema both ends already had (the same component
 * schema reached from the same side, or the same body) is reported too; a schema that is new
 * or gone is the other rules' business. OpenAPI says the payload MUST carry the discriminator's
 * property and its value names the variant, so: added in a request is breaking when some
 * variant did not require the property before (a caller that left it out is now refused), a
 * warning when every variant already required it (the value must now name a variant of the
 * mapping, which a server built from the description checks); removed from a request is info
 * (the schema accepts what it accepted); removed from a response is breaking (callers can no
 * longer pick the variant by the property); added to a response is info.
 */
import type { Endpoint } from '../../schemas/types.js';
import { type Defs, defAt } from './schema-diff.js';

type Discriminators = NonNullable<NonNullable<Endpoint['contract']>['discriminators']>;
type Side = 'request' | 'response';

export interface DiscriminatorChange {
  id:
    | `${Side}-discriminator-property-name-changed`
    | `${Side}-discriminator-mapping-added`
    | `${Side}-discriminator-mapping-removed`
    | `${Side}-discriminator-mapping-changed`
    | `${Side}-discriminator-added`
    | `${Side}-discriminator-removed`
    | 'request-discriminator-added-property-required';
  text: string;
  location: string;
}

const DEFS_PREFIX = '#/$defs/';

/** Names of the defs reachable from some schemas through `#/$defs/` references. */
function reachable(roots: unknown[], defs: Defs): Set<string> {
  const out = new Set<string>();
  const stack = [...roots];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      for (const x of node) stack.push(x);
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith(DEFS_PREFIX)) {
        const name = value.slice(DEFS_PREFIX.length);
        if (!out.has(name)) {
          out.add(name);
          stack.push(defAt(defs, name));
        }
      } else if (typeof value === 'object') stack.push(value);
    }
  }
  return out;
}

function sideRoots(e: Endpoint): Record<Side, unknown[]> {
  const c = e.contract;
  const request: unknown[] = e.parameters.map((p) => p.schema);
  const response: unknown[] = [];
  if (c?.requestMedia) request.push(...Object.values(c.requestMedia));
  else if (e.requestBody) request.push(e.requestBody.schema);
  if (c?.responses) {
    for (const r of Object.values(c.responses)) {
      response.push(...Object.values(r.media ?? {}));
      for (const h of Object.values(r.headers ?? {})) response.push(h.schema);
    }
  } else if (e.response) response.push(e.response.schema);
  for (const cb of Object.values(c?.callbacks ?? {})) response.push(...Object.values(cb));
  return { request, response };
}

/** The schema of a body an endpoint has, by an inline key (`#request[type]`, `#response/200[type]`). */
function bodySchema(e: Endpoint, key: string): unknown {
  const m = /^#(request|response\/([^[]+))\[(.+)\]$/.exec(key);
  if (!m) return undefined;
  const c = e.contract;
  if (m[1] === 'request') return c?.requestMedia?.[m[3]!];
  return c?.responses?.[m[2]!]?.media?.[m[3]!];
}

/** Whether a schema makes an object carry a property: required at its root, by an allOf member, or by every oneOf/anyOf variant. */
function requires(schema: unknown, property: string, defs: Defs, depth = 0): boolean {
  if (depth > 8 || typeof schema !== 'object' || schema === null) return false;
  const s = schema as Record<string, unknown>;
  if (typeof s.$ref === 'string')
    return (
      s.$ref.startsWith(DEFS_PREFIX) &&
      requires(defAt(defs, s.$ref.slice(DEFS_PREFIX.length)), property, defs, depth + 1)
    );
  if (Array.isArray(s.required) && s.required.includes(property)) return true;
  if (Array.isArray(s.allOf) && s.allOf.some((x) => requires(x, property, defs, depth + 1))) return true;
  for (const list of [s.oneOf, s.anyOf])
    if (Array.isArray(list) && list.length > 0 && list.every((x) => requires(x, property, defs, depth + 1)))
      return true;
  return false;
}

interface Ends {
  before: Endpoint;
  after: Endpoint;
  defsBefore: Defs;
  defsAfter: Defs;
}

/** The sides on which both ends have the schema a discriminator is keyed by. */
function sharedSides(
  name: string,
  ends: Ends,
  reach: () => Record<'before' | 'after', Record<Side, Set<string>>>,
): Side[] {
  if (name.startsWith('#')) {
    const side: Side = name.startsWith('#request') ? 'request' : 'response';
    return bodySchema(ends.before, name) !== undefined && bodySchema(ends.after, name) !== undefined
      ? [side]
      : [];
  }
  const r = reach();
  return (['request', 'response'] as const).filter(
    (side) => r.before[side].has(name) && r.after[side].has(name),
  );
}

function whereOf(name: string, side: Side): string {
  return name.startsWith('#') ? `${name.slice(1).replace('/', ' ')} body` : `${side} schema \`${name}\``;
}

/** A discriminator on one end only, of a schema both ends have. */
function addedOrRemoved(
  name: string,
  ends: Ends,
  reach: () => Record<'before' | 'after', Record<Side, Set<string>>>,
): DiscriminatorChange[] {
  const added = ends.after.contract?.discriminators?.[name];
  const removed = ends.before.contract?.discriminators?.[name];
  const d = added ?? removed!;
  const out: DiscriminatorChange[] = [];
  for (const side of sharedSides(name, ends, reach)) {
    const where = whereOf(name, side);
    const location = `discriminator/${side}/${name}`;
    if (removed) {
      out.push({
        id: `${side}-discriminator-removed`,
        text: `${where}: discriminator \`${d.propertyName}\` removed`,
        location,
      });
      continue;
    }
    const schema = name.startsWith('#') ? bodySchema(ends.before, name) : defAt(ends.defsBefore, name);
    const id =
      side === 'request' && requires(schema, d.propertyName, ends.defsBefore)
        ? 'request-discriminator-added-property-required'
        : (`${side}-discriminator-added` as const);
    out.push({ id, text: `${where}: new discriminator \`${d.propertyName}\``, location });
  }
  return out;
}

export function diffDiscriminators(
  before: Endpoint,
  after: Endpoint,
  defsBefore: Defs,
  defsAfter: Defs,
): DiscriminatorChange[] {
  const db: Discriminators = before.contract?.discriminators ?? {};
  const da: Discriminators = after.contract?.discriminators ?? {};
  const all = [...new Set([...Object.keys(db), ...Object.keys(da)])].sort();
  if (all.length === 0) return [];
  const ends: Ends = { before, after, defsBefore, defsAfter };
  let reached: Record<'before' | 'after', Record<Side, Set<string>>> | undefined;
  const reach = () => {
    if (!reached) {
      const rb = sideRoots(before);
      const ra = sideRoots(after);
      reached = {
        before: { request: reachable(rb.request, defsBefore), response: reachable(rb.response, defsBefore) },
        after: { request: reachable(ra.request, defsAfter), response: reachable(ra.response, defsAfter) },
      };
    }
    return reached;
  };
  const out: DiscriminatorChange[] = [];
  for (const name of all) {
    const x = db[name];
    const y = da[name];
    if (!x || !y) {
      out.push(...addedOrRemoved(name, ends, reach));
      continue;
    }
    for (const side of ['request', 'response'] as const) {
      // Inline at a body's root (`#request[type]`, `#response/200[type]`), else a component schema.
      if (name.startsWith('#') ? !name.startsWith(`#${side}`) : !reach().after[side].has(name)) continue;
      const where = whereOf(name, side);
      const loc = `discriminator/${side}/${name}`;
      if (x.propertyName !== y.propertyName)
        out.push({
          id: `${side}-discriminator-property-name-changed`,
          text: `${where}: discriminator property \`${x.propertyName}\` → \`${y.propertyName}\``,
          location: loc,
        });
      for (const value of Object.keys(x.mapping).sort()) {
        const target = y.mapping[value];
        if (target === undefined)
          out.push({
            id: `${side}-discriminator-mapping-removed`,
            text: `${where}: discriminator value \`${value}\` (${x.mapping[value]}) removed`,
            location: `${loc}=${value}`,
          });
        else if (target !== x.mapping[value])
          out.push({
            id: `${side}-discriminator-mapping-changed`,
            text: `${where}: discriminator value \`${value}\` now names ${target}, not ${x.mapping[value]}`,
            location: `${loc}=${value}`,
          });
      }
      for (const value of Object.keys(y.mapping).sort())
        if (!Object.hasOwn(x.mapping, value))
          out.push({
            id: `${side}-discriminator-mapping-added`,
            text: `${where}: new discriminator value \`${value}\` (${y.mapping[value]})`,
            location: `${loc}=${value}`,
          });
    }
  }
  return out;
}
