import type { Endpoint } from '../../schemas/types.js';

/**
 * Endpoints are matched across imports by method and path shape: `/pets/{id}` and
 * `/pets/{petId}` are the same endpoint (a renamed path parameter is not a new endpoint).
 */
export function endpointMatchKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}/]*\}/g, '{}')}`;
}

/** "POST webhook push": the key of a webhook's change (webhooks are named, not pathed). */
export function webhookKey(method: string, name: string): string {
  return `${method} webhook ${name}`;
}

/** Whether a change in the report is a webhook's (its key names no path). */
export function isWebhookKey(key: string): boolean {
  return / webhook /.test(key) && !key.includes(' /');
}

/** "GET /pets/{id}": how people (and the report) name an endpoint. */
export function endpointLabel(endpoint: Pick<Endpoint, 'method' | 'path'>): string {
  return `${endpoint.method} ${endpoint.path}`;
}

/** The group an endpoint is listed under in a long report: its first tag, else its first path segment. */
export function endpointGroup(endpoint: Pick<Endpoint, 'path' | 'tags'>): string {
  const tag = endpoint.tags[0];
  if (tag) return tag;
  const segment = endpoint.path.split('/').find((s) => s !== '');
  return segment ? `/${segment}` : '/';
}
