/** A JSON object: not null, not an array (parsed JSON and YAML hold nothing else that is an object). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
