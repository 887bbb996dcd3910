/**
 * Nesting depth of a parsed JSON value, found without recursion. JSON.parse itself is
 * iterative in V8, but much that runs after it (schema validation, cloning, serialising)
 * recurses, so a message nested thousands of levels deep would end as "Maximum call stack
 * size exceeded"; the runtime refuses it up front, naming this limit.
 */

/** Deepest nesting of objects and arrays a JSON-RPC message may have (the message itself is level 1). */
export const MAX_JSON_DEPTH = 256;

/** True when `value` nests objects/arrays deeper than `limit` levels. Stops at the first such path. */
export function exceedsJsonDepth(value: unknown, limit = MAX_JSON_DEPTH): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: unknown[] = [value];
  const depths: number[] = [1];
  while (stack.length > 0) {
    const node = stack.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    if (Array.isArray(node)) {
      for (const item of node) {
        if (typeof item === 'object' && item !== null) {
          stack.push(item);
          depths.push(depth + 1);
        }
      }
    } else {
      for (const key in node) {
        const item = (node as Record<string, unknown>)[key];
        if (typeof item === 'object' && item !== null) {
          stack.push(item);
          depths.push(depth + 1);
        }
      }
    }
  }
  return false;
}
