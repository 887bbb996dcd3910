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
 */
import type { Endpoint } from '../../schemas/types.js';

type Discriminators = NonNullable<NonNullable<Endpoint['contract']>['discriminators']>;
type Defs = Record<string, unknown>;
type Side = 'request' | 'response';

export interface DiscriminatorChange {
  id:
    | `${Side}-discriminator-property-name-changed`
    | `${Side}-discriminator-mapping-added`
    | `${Side}-discriminator-mapping-removed`
    | `${Side}-discriminator-mapping-changed`;
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
          stack.push(defs[name]);
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

export function diffDiscriminators(before: Endpoint, after: Endpoint, defs: Defs): DiscriminatorChange[] {
  const db: Discriminators = before.contract?.discriminators ?? {};
  const da: Discriminators = after.contract?.discriminators ?? {};
  const names = Object.keys(db).filter((n) => Object.hasOwn(da, n));
  if (names.length === 0) return [];
  const roots = sideRoots(after);
  const sides: Record<Side, Set<string>> = {
    request: reachable(roots.request, defs),
    response: reachable(roots.response, defs),
  };
  const out: DiscriminatorChange[] = [];
  for (const name of names.sort()) {
    const x = db[name]!;
    const y = da[name]!;
    for (const side of ['request', 'response'] as const) {
      // Inline at a body's root (`#request[type]`, `#response/200[type]`), else a component schema.
      if (name.startsWith('#') ? !name.startsWith(`#${side}`) : !sides[side].has(name)) continue;
      const where = name.startsWith('#')
        ? `${name.slice(1).replace('/', ' ')} body`
        : `${side} schema \`${name}\``;
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
