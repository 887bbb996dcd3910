import { createHash } from 'node:crypto';
import type { Endpoint } from '../../schemas/types.js';

/**
 * 16 hex chars of sha256 over the endpoint's canonical JSON (sorted keys), referenced defs
 * included: a re-import compares it to tell "the definition changed" from "unchanged".
 * Defs are shared by many endpoints of one document, so their canonical text is cached.
 */
export function endpointFingerprint(endpoint: Endpoint): string {
  const { defs, ...rest } = endpoint;
  const hash = createHash('sha256').update(canonicalJson(rest));
  if (defs) {
    for (const name of Object.keys(defs).sort()) {
      hash.update(`\n${JSON.stringify(name)}:`);
      hash.update(cachedCanonical(defs[name]));
    }
  }
  return hash.digest('hex').slice(0, 16);
}

const canonicalCache = new WeakMap<object, string>();

function cachedCanonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return canonicalJson(value);
  let text = canonicalCache.get(value);
  if (text === undefined) {
    text = canonicalJson(value);
    canonicalCache.set(value, text);
  }
  return text;
}

/** JSON with object keys sorted at every level; undefined members left out as JSON does. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value))
    return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const record = value as Record<string, unknown>;
  const parts: string[] = [];
  for (const key of Object.keys(record).sort()) {
    const v = record[key];
    if (v === undefined) continue;
    parts.push(`${JSON.stringify(key)}:${canonicalJson(v)}`);
  }
  return `{${parts.join(',')}}`;
}
