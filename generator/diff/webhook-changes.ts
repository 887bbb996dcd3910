/**
 * The webhook changes of an import (issue 24). The previous import's webhooks are not stored
 * with its endpoints: they are read again from the document the folder holds
 * (Tools/openapi.json, as the previous import wrote it), and only when that document is
 * OpenAPI 3.1 and names `webhooks`, or names `x-webhooks` (OpenAPI 3.0 descriptions such as
 * GitHub's), so an upgrade of a document without webhooks pays nothing.
 */
import type { Endpoint, EndpointChange } from '../../schemas/types.js';
import { toWebhooks } from '../endpoints/index.js';
import { parseDocument } from '../parse/index.js';
import type { DiffOptions } from './diff-endpoints.js';
import { diffWebhooks } from './webhook-diff.js';

const OPENAPI_31 = /"openapi"\s*:\s*"3\.[1-9]/;

function mayHaveWebhooks(text: string | undefined): text is string {
  if (text === undefined) return false;
  if (text.includes('"x-webhooks"')) return true;
  return text.includes('"webhooks"') && OPENAPI_31.test(text);
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
      const text = previousDocument;
      before = toWebhooks(await parseDocument({ text, origin: 'Tools/openapi.json', bytes: text.length }));
    } catch {
      // A previous document that no longer parses has no webhooks to compare: they read as added.
    }
  }
  return diffWebhooks(before, webhooks, options);
}
