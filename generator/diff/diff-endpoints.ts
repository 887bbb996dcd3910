import { createHash } from 'node:crypto';
import type { ApiChange, Endpoint, EndpointChange } from '../../schemas/types.js';
import { endpointGroup, endpointLabel, endpointMatchKey } from './endpoint-key.js';
import { RULES, type RuleId } from './rules.js';
import { type SchemaFinding, SchemaDiffer } from './schema-diff.js';

const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function fingerprint(id: RuleId, key: string, location: string): string {
  return createHash('sha256').update(`${id}\u0000${key}\u0000${location}`).digest('hex').slice(0, 12);
}

class Changes {
  readonly list: ApiChange[] = [];
  constructor(private readonly key: string) {}
  add(id: RuleId, text: string, location = ''): void {
    const change: ApiChange = {
      id,
      level: RULES[id].level,
      text,
      fingerprint: fingerprint(id, this.key, location),
    };
    if (location) change.location = location;
    this.list.push(change);
  }
}

function quote(s: string): string {
  return `\`${s}\``;
}

function paramsByKey(endpoint: Endpoint): Map<string, Endpoint['parameters'][number]> {
  return new Map(endpoint.parameters.map((p) => [`${p.in}:${p.name}`, p]));
}

function diffParameters(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = paramsByKey(before);
  const a = paramsByKey(after);
  const pathRenamed = before.path !== after.path;
  const keys = [...new Set([...b.keys(), ...a.keys()])].sort();
  for (const key of keys) {
    const pb = b.get(key);
    const pa = a.get(key);
    // A renamed path parameter is reported once, as a rename of the path, not as remove + add.
    if (pathRenamed && (pb?.in === 'path' || pa?.in === 'path') && !(pb && pa)) continue;
    const label = `${(pa ?? pb)!.in} parameter ${quote((pa ?? pb)!.name)}`;
    if (!pb && pa) {
      if (pa.required) out.add('request-parameter-added-required', `new required ${label}`, key);
      else out.add('request-parameter-added-optional', `new optional ${label}`, key);
      continue;
    }
    if (pb && !pa) {
      out.add('request-parameter-removed', `${label} removed`, key);
      continue;
    }
    if (!pb || !pa) continue;
    if (!pb.required && pa.required)
      out.add('request-parameter-became-required', `${label} became required`, key);
    if (pb.required && !pa.required)
      out.add('request-parameter-became-optional', `${label} became optional`, key);
    if (!pb.deprecated && pa.deprecated) out.add('request-parameter-deprecated', `${label} deprecated`, key);
    for (const f of differ.diff(pb.schema, before.defs, pa.schema, after.defs)) {
      const where = f.path ? `${label} (${f.path})` : label;
      const loc = f.path ? `${key}/${f.path}` : key;
      if (f.kind === 'type-changed')
        out.add('request-parameter-type-changed', `${where} type ${f.detail}`, loc);
      else if (f.kind === 'enum-value-removed')
        out.add(
          'request-parameter-enum-value-removed',
          `${where} no longer accepts ${f.detail}`,
          `${loc}=${f.detail}`,
        );
      else if (f.kind === 'enum-value-added')
        out.add('request-parameter-enum-value-added', `${where} accepts ${f.detail}`, `${loc}=${f.detail}`);
    }
  }
}

function requestFinding(f: SchemaFinding, out: Changes): void {
  const loc = `body/${f.path}`;
  const prop = quote(f.path);
  switch (f.kind) {
    case 'type-changed':
      out.add(
        'request-body-type-changed',
        `request body${f.path ? ` property ${prop}` : ''} type ${f.detail}`,
        loc,
      );
      break;
    case 'property-added':
      if (f.required)
        out.add('request-property-added-required', `new required request property ${prop}`, loc);
      else out.add('request-property-added-optional', `new optional request property ${prop}`, loc);
      break;
    case 'property-removed':
      out.add('request-property-removed', `request property ${prop} removed`, loc);
      break;
    case 'became-required':
      out.add('request-property-became-required', `request property ${prop} became required`, loc);
      break;
    case 'became-optional':
      out.add('request-property-became-optional', `request property ${prop} became optional`, loc);
      break;
    case 'enum-value-removed':
      out.add(
        'request-property-enum-value-removed',
        `request property ${prop} no longer accepts ${f.detail}`,
        `${loc}=${f.detail}`,
      );
      break;
    case 'enum-value-added':
      out.add(
        'request-property-enum-value-added',
        `request property ${prop} accepts ${f.detail}`,
        `${loc}=${f.detail}`,
      );
      break;
  }
}

function responseFinding(f: SchemaFinding, out: Changes): void {
  const loc = `response/${f.path}`;
  const prop = quote(f.path);
  switch (f.kind) {
    case 'type-changed':
      out.add('response-type-changed', `response${f.path ? ` property ${prop}` : ''} type ${f.detail}`, loc);
      break;
    case 'property-added':
      out.add('response-property-added', `new response property ${prop}`, loc);
      break;
    case 'property-removed':
      out.add('response-property-removed', `response property ${prop} removed`, loc);
      break;
    case 'became-required':
      out.add('response-property-became-required', `response property ${prop} is now always present`, loc);
      break;
    case 'became-optional':
      out.add(
        'response-property-became-optional',
        `response property ${prop} is no longer always present`,
        loc,
      );
      break;
    case 'enum-value-removed':
      out.add(
        'response-property-enum-value-removed',
        `response ${prop || 'value'} no longer holds ${f.detail}`,
        `${loc}=${f.detail}`,
      );
      break;
    case 'enum-value-added':
      out.add(
        'response-property-enum-value-added',
        `response ${prop || 'value'} may hold ${f.detail}`,
        `${loc}=${f.detail}`,
      );
      break;
  }
}

function diffRequestBody(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = before.requestBody;
  const a = after.requestBody;
  if (!b && !a) return;
  if (!b && a) {
    if (a.required) out.add('request-body-added-required', `now requires a ${a.contentType} body`, 'body');
    else out.add('request-body-added-optional', `now accepts an optional ${a.contentType} body`, 'body');
    return;
  }
  if (b && !a) {
    out.add('request-body-removed', 'no longer takes a request body', 'body');
    return;
  }
  if (!b || !a) return;
  if (!b.required && a.required)
    out.add('request-body-became-required', 'request body became required', 'body');
  if (b.required && !a.required)
    out.add('request-body-became-optional', 'request body became optional', 'body');
  if (b.contentType !== a.contentType) {
    out.add('request-body-content-type-changed', `request body ${b.contentType} → ${a.contentType}`, 'body');
  }
  for (const f of differ.diff(b.schema, before.defs, a.schema, after.defs)) requestFinding(f, out);
}

function diffResponse(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const b = before.response;
  const a = after.response;
  if (b && a && b.status !== a.status) {
    out.add('response-success-status-changed', `success status ${b.status} → ${a.status}`, 'response');
  }
  if (b?.contentType && a?.contentType && b.contentType !== a.contentType) {
    out.add(
      'response-content-type-changed',
      `success response ${b.contentType} → ${a.contentType}`,
      'response',
    );
  }
  const bs = b?.schema;
  const as = a?.schema;
  if (bs === undefined && as === undefined) return;
  if (bs === undefined) {
    out.add('response-body-added', 'the success response now has a body schema', 'response');
    return;
  }
  if (as === undefined) {
    out.add('response-body-removed', 'the success response no longer has a body schema', 'response');
    return;
  }
  for (const f of differ.diff(bs, before.defs, as, after.defs)) responseFinding(f, out);
}

function diffSecurity(before: Endpoint, after: Endpoint, out: Changes): void {
  const had = new Set(before.scopes ?? []);
  const wider = (after.scopes ?? []).filter((s) => !had.has(s));
  if (wider.length > 0)
    out.add('security-scopes-widened', `now needs OAuth scope ${wider.join(', ')}`, 'security/scopes');
  const alt = (e: Endpoint) => new Set(e.security.map((names) => [...names].sort().join(' + ') || '(none)'));
  const b = alt(before);
  const a = alt(after);
  const open = (s: Set<string>) => s.size === 0 || s.has('(none)');
  if (open(b) && !open(a)) {
    out.add('security-added', `now requires ${[...a].sort().join(' or ')}`, 'security');
    return;
  }
  if (!open(b) && open(a)) {
    out.add('security-removed', 'no longer requires authorization', 'security');
    return;
  }
  for (const s of [...b].sort())
    if (!a.has(s)) out.add('security-alternative-removed', `${s} no longer accepted`, `security/${s}`);
  for (const s of [...a].sort())
    if (!b.has(s)) out.add('security-alternative-added', `${s} now accepted`, `security/${s}`);
}

/** The changes between two versions of one endpoint (empty when nothing a caller can see changed). */
export function diffEndpoint(before: Endpoint, after: Endpoint, differ = new SchemaDiffer()): ApiChange[] {
  const out = new Changes(endpointMatchKey(after.method, after.path));
  if (before.path !== after.path) {
    const sameShape =
      endpointMatchKey(before.method, before.path) === endpointMatchKey(after.method, after.path);
    out.add(
      sameShape ? 'endpoint-path-parameter-renamed' : 'endpoint-path-changed',
      `path ${before.path} → ${after.path}`,
      'path',
    );
  }
  if ((before.operationId ?? '') !== (after.operationId ?? '')) {
    out.add(
      'endpoint-operation-id-changed',
      `operationId ${before.operationId ?? '(none)'} → ${after.operationId ?? '(none)'}`,
      'operationId',
    );
  }
  if (!before.deprecated && after.deprecated) out.add('endpoint-deprecated', 'deprecated', 'deprecated');
  if (before.deprecated && !after.deprecated)
    out.add('endpoint-undeprecated', 'no longer deprecated', 'deprecated');
  if (
    (before.summary ?? '') !== (after.summary ?? '') ||
    (before.description ?? '') !== (after.description ?? '')
  ) {
    out.add('endpoint-summary-changed', 'summary or description changed', 'summary');
  }
  diffParameters(before, after, out, differ);
  diffRequestBody(before, after, out, differ);
  diffResponse(before, after, out, differ);
  diffSecurity(before, after, out);
  return out.list;
}

function compareEndpoints(
  a: Pick<Endpoint, 'method' | 'path'>,
  b: Pick<Endpoint, 'method' | 'path'>,
): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return METHOD_ORDER.indexOf(a.method) - METHOD_ORDER.indexOf(b.method);
}

function entry(endpoint: Endpoint, kind: EndpointChange['kind'], changes: ApiChange[]): EndpointChange {
  const change: EndpointChange = {
    key: endpointLabel(endpoint),
    method: endpoint.method,
    path: endpoint.path,
    group: endpointGroup(endpoint),
    kind,
    breaking: changes.some((c) => c.level === 'breaking'),
    changes,
  };
  if (endpoint.operationId) change.operationId = endpoint.operationId;
  return change;
}

/**
 * Per-endpoint diff of two imports: every endpoint added, removed or changed, sorted by path
 * then method, each with its classified changes. Endpoints match by method and path shape.
 */
export function diffEndpoints(before: Endpoint[], after: Endpoint[]): EndpointChange[] {
  const old = new Map(before.map((e) => [endpointMatchKey(e.method, e.path), e]));
  const seen = new Set<string>();
  const differ = new SchemaDiffer();
  const result: { endpoint: Endpoint; change: EndpointChange }[] = [];
  const fresh: Endpoint[] = [];
  for (const endpoint of after) {
    const key = endpointMatchKey(endpoint.method, endpoint.path);
    const previous = old.get(key);
    if (!previous) {
      fresh.push(endpoint);
      continue;
    }
    seen.add(key);
    const changes = diffEndpoint(previous, endpoint, differ);
    if (changes.length > 0) result.push({ endpoint, change: entry(endpoint, 'changed', changes) });
  }
  // A path renamed upstream keeps its method and operationId: report it as one changed
  // endpoint (as the merge keeps its tool), when the pairing is unambiguous.
  const gone = [...old].filter(([key]) => !seen.has(key)).map(([, e]) => e);
  const goneByOp = uniqueByOperation(gone);
  const freshByOp = uniqueByOperation(fresh);
  for (const endpoint of fresh) {
    const op = operationKey(endpoint);
    const previous = op ? goneByOp.get(op) : undefined;
    if (op && previous && freshByOp.get(op) === endpoint) {
      seen.add(endpointMatchKey(previous.method, previous.path));
      result.push({ endpoint, change: entry(endpoint, 'changed', diffEndpoint(previous, endpoint, differ)) });
      continue;
    }
    const c = new Changes(endpointMatchKey(endpoint.method, endpoint.path));
    c.add('endpoint-added', 'endpoint added');
    result.push({ endpoint, change: entry(endpoint, 'added', c.list) });
  }
  for (const [key, endpoint] of old) {
    if (seen.has(key)) continue;
    const c = new Changes(key);
    c.add('endpoint-removed', 'endpoint removed');
    result.push({ endpoint, change: entry(endpoint, 'removed', c.list) });
  }
  result.sort((x, y) => compareEndpoints(x.endpoint, y.endpoint));
  return result.map((r) => r.change);
}

function operationKey(endpoint: Endpoint): string | undefined {
  return endpoint.operationId ? `${endpoint.method} ${endpoint.operationId}` : undefined;
}

function uniqueByOperation(list: readonly Endpoint[]): Map<string, Endpoint> {
  const out = new Map<string, Endpoint>();
  const dup = new Set<string>();
  for (const e of list) {
    const key = operationKey(e);
    if (!key || dup.has(key)) continue;
    if (out.has(key)) {
      out.delete(key);
      dup.add(key);
    } else out.set(key, e);
  }
  return out;
}
