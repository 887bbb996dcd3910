/**
 * OpenAPI 3.1 `webhooks`, compared (issue 24). A webhook's request is sent by the API to the
 * consumer, so the direction rule flips: its payload is judged as a response is (a payload that
 * promises less — a property removed or optional, a new enum value, a wider type, a looser
 * constraint, a media type or the whole body gone — breaks the consumer's handler), and a new
 * webhook is info (consumers opt in). A removed webhook breaks: the consumers that handle it stop
 * receiving its requests. Webhooks are read as endpoints (generator/endpoints/to-webhooks.ts),
 * matched by method and name; what the consumer answers is not compared.
 */
import type { Endpoint, EndpointChange } from '../../schemas/types.js';
import { aggregated, allDefs, Changes, type DiffOptions } from './diff-endpoints.js';
import { webhookKey } from './endpoint-key.js';
import { SchemaDiffer } from './schema-diff.js';

function webhookName(e: Endpoint): string {
  return e.path.slice(1);
}

function key(e: Endpoint): string {
  return webhookKey(e.method, webhookName(e));
}

/** The payload's schema per media type (an endpoint stored without a contract knows one). */
function payload(e: Endpoint): Record<string, unknown> {
  if (e.contract?.requestMedia) return e.contract.requestMedia;
  return e.requestBody ? { [e.requestBody.contentType]: e.requestBody.schema } : {};
}

function diffPayload(before: Endpoint, after: Endpoint, out: Changes, differ: SchemaDiffer): void {
  const mb = payload(before);
  const ma = payload(after);
  const name = `webhook \`${webhookName(after)}\` payload`;
  const typesB = Object.keys(mb).sort();
  const typesA = Object.keys(ma).sort();
  if (typesB.length > 0 && typesA.length === 0) {
    out.add('webhook-payload-loosened', `${name} is gone`, 'payload');
    return;
  }
  if (typesB.length === 0 && typesA.length > 0) {
    out.add('webhook-payload-changed', `${name} is new`, 'payload');
    return;
  }
  for (const type of typesB)
    if (!Object.hasOwn(ma, type))
      out.add('webhook-payload-loosened', `${name} no longer comes as ${type}`, `payload[${type}]`);
  for (const type of typesA)
    if (!Object.hasOwn(mb, type))
      out.add('webhook-payload-changed', `${name} may come as ${type}`, `payload[${type}]`);
  const bDefs = allDefs(before);
  const aDefs = allDefs(after);
  for (const type of typesB) {
    if (!Object.hasOwn(ma, type)) continue;
    const label = typesB.length > 1 ? `${name} (${type})` : name;
    aggregated(
      differ.diff(mb[type], bDefs, ma[type], aDefs, 'response'),
      out,
      `payload[${type}]`,
      label,
      'webhook-payload-loosened',
      'webhook-payload-changed',
    );
  }
}

function entry(e: Endpoint, kind: EndpointChange['kind'], changes: Changes): EndpointChange {
  return {
    key: key(e),
    method: e.method,
    path: webhookName(e),
    group: 'webhooks',
    kind,
    breaking: changes.list.some((c) => c.level === 'breaking'),
    changes: changes.list,
    ...(e.operationId ? { operationId: e.operationId } : {}),
  };
}

/** The webhooks added, removed or changed between two documents, sorted by name then method. */
export function diffWebhooks(
  before: readonly Endpoint[],
  after: readonly Endpoint[],
  options: DiffOptions = {},
): EndpointChange[] {
  if (before.length === 0 && after.length === 0) return [];
  const old = new Map(before.map((e) => [key(e), e]));
  const differ = new SchemaDiffer();
  const result: EndpointChange[] = [];
  for (const hook of after) {
    const k = key(hook);
    const previous = old.get(k);
    const out = new Changes(k, options);
    if (!previous) {
      out.add('webhook-added', `webhook ${webhookName(hook)} added`);
      result.push(entry(hook, 'added', out));
      continue;
    }
    old.delete(k);
    diffPayload(previous, hook, out, differ);
    if (out.list.length > 0) result.push(entry(hook, 'changed', out));
  }
  for (const [k, hook] of old) {
    const out = new Changes(k, options);
    out.add('webhook-removed', `webhook ${webhookName(hook)} removed`);
    result.push(entry(hook, 'removed', out));
  }
  return result.sort((x, y) =>
    x.path === y.path ? (x.method < y.method ? -1 : 1) : x.path < y.path ? -1 : 1,
  );
}
