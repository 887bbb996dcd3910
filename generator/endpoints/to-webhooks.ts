/**
 * The webhooks of an OpenAPI document, read as endpoints for the diff only (issue 24): a webhook
 * is a request the API sends to its consumers, so no tool is made of it. OpenAPI 3.1 names them
 * `webhooks`; OpenAPI 3.0 has no such field, and descriptions such as GitHub's carry the same
 * map as `x-webhooks`, which is read the same way (a 3.x document with both reads `webhooks`).
 * Each webhook's path item goes through the same reading as a path, its name standing for the
 * path (`/newPet`); its request body is the payload the API sends, its responses what the
 * consumer answers. Swagger 2.0 has no webhooks.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint } from '../../schemas/types.js';
import type { ParsedDocument } from '../parse/index.js';
import { toEndpoints } from './to-endpoints.js';

export function toWebhooks(parsed: ParsedDocument): Endpoint[] {
  if (parsed.version === 'swagger-2.0') return [];
  const doc = parsed.document;
  const hooks = isPlainObject(doc.webhooks) ? doc.webhooks : doc['x-webhooks'];
  if (!isPlainObject(hooks)) return [];
  const paths: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(hooks)) paths[`/${name}`] = item;
  return toEndpoints({ ...parsed, document: { ...parsed.document, paths } });
}
