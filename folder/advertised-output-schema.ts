/**
 * The outputSchema a tool advertises in tools/list: the one its folder declares, or a marker
 * that says "the upstream answered something else; read the text".
 *
 * An upstream's answer is the upstream's to shape, and API descriptions are often wrong about
 * it. A client that knows a tool's outputSchema (the official SDK's among them, in both protocol
 * eras) throws when a successful result has no structuredContent, or one that does not match,
 * so the model gets an error for a call that succeeded, and may repeat a call that is not
 * idempotent. The MCP specification also requires a server that declares an outputSchema to
 * return structured results that conform to it. So the runtime advertises only a schema it can
 * always keep: the declared one, or the UNMATCHED marker object, sent as structuredContent when
 * the answer does not match (its text goes out as content, and the call stays a success).
 *
 * The declared schema moves under `$defs` (its own `$defs` stay at the root, so its local
 * `$ref`s resolve as before; any other local `$ref` is rewritten to its new place).
 */
import { isPlainObject } from '../core/is-plain-object.js';

export const DECLARED_DEF = 'declaredOutput';

/** The structuredContent of a successful answer that does not match the declared schema. */
export const UNMATCHED = Object.freeze({ unmatched: true as const });

const UNMATCHED_SCHEMA = {
  type: 'object',
  title: 'Answer not in the declared shape',
  description:
    "The upstream API answered with something the declared output schema does not describe; the whole answer is in the result's text content.",
  properties: { unmatched: { const: true } },
  required: ['unmatched'],
  additionalProperties: false,
};

function rewriteRefs(node: unknown, depth = 0): unknown {
  if (depth > 256) return node;
  if (Array.isArray(node)) return node.map((item) => rewriteRefs(item, depth + 1));
  if (!isPlainObject(node)) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$ref' && typeof value === 'string' && (value === '#' || value.startsWith('#/'))) {
      out[key] = value.startsWith('#/$defs/') ? value : `#/$defs/${DECLARED_DEF}${value.slice(1)}`;
    } else if (key === 'enum' || key === 'const' || key === 'default' || key === 'examples') out[key] = value;
    else out[key] = rewriteRefs(value, depth + 1);
  }
  return out;
}

export function advertisedOutputSchema(
  declared: Record<string, unknown>,
): Record<string, unknown> & { type: 'object' } {
  const { $defs, $schema: _schema, $id: _id, ...rest } = declared;
  const body = rewriteRefs(rest) as Record<string, unknown>;
  const ownDefs = isPlainObject($defs) ? (rewriteRefs($defs) as Record<string, unknown>) : {};
  return {
    type: 'object',
    anyOf: [{ $ref: `#/$defs/${DECLARED_DEF}` }, UNMATCHED_SCHEMA],
    $defs: { ...ownDefs, [DECLARED_DEF]: body },
  };
}
