/**
 * The webhook changes of an import (issue 24). The previous import's webhooks are not stored
 * with its endpoints: they are read again from the document the folder holds
 * (Tools/openapi.json, as the previous import wrote it), and only when that document is
 * OpenAPI 3.1 and names `webhooks`, or names `x-webhooks` (OpenAPI 3.0 descriptions such as
 * GitHub's), so an upgrade of a document without webhooks pays nothing. That document was
 * checked when the previous import wrote it, so it is only decoded here (JSON.parse), not
 * checked again: on GitHub's 11 MB description that saves most of a full parse. One edited by
 * hand into something the reading refuses has no webhooks to compare (they read as added).
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint, EndpointChange } from '../../schemas/types.js';
import { toWebhooks } from '../endpoints/index.js';
import type { ParsedDocument } from '../parse/index.js';
import type { DiffOptions } from './diff-endpoints.js';
import { diffWebhooks } from './webhook-diff.js';

const OPENAPI_31 = /"openapi"\s*:\s*"3\.[1-9]/;

function mayHaveWebhooks(text: string | undefined): text is string {
  if (text === undefined) return false;
  if (text.includes('"x-webhooks"')) return true;
  return text.includes('"webhooks"') && OPENAPI_31.test(text);
}

/** The previous document as the endpoint reading wants it; undefined when it is no OpenAPI 3 JSON object. */
function decoded(text: string): ParsedDocument | undefined {
  const document: unknown = JSON.parse(text);
  if (!isPlainObject(document) || typeof document.openapi !== 'string') return undefined;
  const version = /^3\.[1-9]/.test(document.openapi) ? 'openapi-3.1' : 'openapi-3.0';
  return { version, document, title: 'API' };
}

export async function webhookChanges(
  previousDocument: string | undefined,
  webhooks: readonly Endpoint[],
  options: DiffOptions = {},
): Promise<EndpointChange[]> {
  let before: Endpoint[] = [];
  // A plain search first: a regular expression over a 10 MB document that does not match costs tens of ms.
  if (mayHaveWebhooks(previousDocument)) {
    try {
      const previous = decoded(previousDocument);
      if (previous) before = toWebhooks(previous);
    } catch {
      // A previous document that no longer parses has no webhooks to compare: they read as added.
    }
  }
  return diffWebhooks(before, webhooks, options);
}
