/**
 * The webhooks of an OpenAPI 3.1 document (`webhooks`), read as endpoints for the diff only
 * (issue 24): a webhook is a request the API sends to its consumers, so no tool is made of it.
 * Each webhook's path item goes through the same reading as a path, its name standing for the
 * path (`/newPet`); its request body is the payload the API sends, its responses what the
 * consumer answers. Swagger 2.0 and OpenAPI 3.0 have no webhooks (GitHub's `x-webhooks` is not read).
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint } from '../../schemas/types.js';
import type { ParsedDocument } from '../parse/index.js';
import { toEndpoints } from './to-endpoints.js';

export function toWebhooks(parsed: ParsedDocument): Endpoint[] {
  const hooks = parsed.document.webhooks;
  if (parsed.version === 'swagger-2.0' || !isPlainObject(hooks)) return [];
  const paths: Record<string, unknown> = {};
  for (const [name, item] of Object.entries(hooks)) paths[`/${name}`] = item;
  return toEndpoints({ ...parsed, document: { ...parsed.document, paths } });
}
