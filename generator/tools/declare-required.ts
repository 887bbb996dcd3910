/**
 * Real API descriptions sometimes require a property they never declare (Asana's SectionRequest
 * requires `project`, Vonage's createCall `answer_url`). The API still wants it, so the tool
 * declares it, untyped and said to be undescribed, rather than drop the requirement or ship a
 * schema that `svc validate` refuses once the tool is enabled.
 */
import { undeclaredRequired } from '../../folder/required-names.js';

export const UNDESCRIBED = 'Required by the API description, which does not describe it.';

/** Declares, in place, every required name of `schema` that its object does not declare. */
export function declareRequiredNames(schema: Record<string, unknown>): void {
  for (const [pointer, name] of undeclaredRequired(schema)) {
    const owner = resolve(schema, pointer.replace(/\/required\/\d+$/, ''));
    if (!owner) continue;
    if (owner.properties === undefined) owner.properties = {};
    (owner.properties as Record<string, unknown>)[name] = { description: UNDESCRIBED };
  }
}

function resolve(root: Record<string, unknown>, pointer: string): Record<string, unknown> | undefined {
  let node: unknown = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node !== null && typeof node === 'object' && !Array.isArray(node)
    ? (node as Record<string, unknown>)
    : undefined;
}
