/**
 * One canonical JSON for the whole project: object keys sorted at every level, undefined members
 * left out as JSON does, so equal values give equal text. Fingerprints, digests and stored
 * hashes are computed over it: changing its bytes changes every recorded fingerprint.
 */
import { createHash } from 'node:crypto';

/** Compact canonical JSON, for hashing and comparing. */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

const sha256Cache = new WeakMap<object, string>();

/**
 * SHA-256 (hex) of a value's canonical JSON. An object's digest is computed once per object and
 * kept while the object lives: the schemas a document shares among its endpoints (GitHub's run
 * to hundreds of KB) are serialized and hashed once, whoever asks (the endpoint fingerprint, the
 * endpoint store). The object must not change once hashed, as nothing in an import changes them.
 */
export function canonicalSha256(value: unknown): string {
  if (value === null || typeof value !== 'object') return sha256(canonicalJson(value));
  let digest = sha256Cache.get(value);
  if (digest === undefined) {
    digest = sha256(canonicalJson(value));
    sha256Cache.set(value, digest);
  }
  return digest;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Canonical JSON indented by two spaces with a final newline, for files people diff. */
export function prettyCanonicalJson(value: unknown): string {
  return `${JSON.stringify(sortedCopy(value), null, 2)}\n`;
}

function sortedCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedCopy);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const key of sortKeys(Object.keys(value))) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = sortedCopy(v);
  }
  return out;
}

/** Whether two values are the same JSON; undefined (an absent field) equals only undefined. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  return canonicalJson(a) === canonicalJson(b);
}

// A hand-written writer rather than JSON.stringify over a sorted copy: it builds no copy of
// documents that run to megabytes (GitHub's shared schemas). Parts are collected and joined
// once: concatenating them instead builds rope strings that cost far more to keep and hash.
function write(value: unknown, out: string[]): void {
  if (typeof value === 'string') {
    out.push(JSON.stringify(value));
    return;
  }
  if (value === null || typeof value !== 'object') {
    out.push(JSON.stringify(value) ?? 'null');
    return;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) {
      out.push('[]');
      return;
    }
    out.push('[');
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.push(',');
      const item = value[i];
      if (item === undefined) out.push('null');
      else write(item, out);
    }
    out.push(']');
    return;
  }
  const record = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(record));
  let opening = true;
  for (const key of keys) {
    const v = record[key];
    if (v === undefined) continue;
    out.push(opening ? `{${keyText(key)}` : `,${keyText(key)}`);
    opening = false;
    write(v, out);
  }
  out.push(opening ? '{}' : '}');
}

// A key of these characters is its own JSON string body; any other is escaped by JSON.
const PLAIN_KEY = /^[\w$.\-/ ]*$/;
/** `"key":` by key: schemas repeat the same few keywords and property names thousands of times. */
const keyTexts = new Map<string, string>();
const MAX_KEY_TEXTS = 10_000;

function keyText(key: string): string {
  let text = keyTexts.get(key);
  if (text === undefined) {
    text = `"${PLAIN_KEY.test(key) ? key : JSON.stringify(key).slice(1, -1)}":`;
    if (keyTexts.size < MAX_KEY_TEXTS) keyTexts.set(key, text);
  }
  return text;
}

/** Keys above this many are sorted by Array.prototype.sort. */
const INSERTION_SORT_MAX = 16;

/**
 * Sorts an object's keys in place, in the order `sort()` gives (by UTF-16 code units). The few
 * keys of most objects are sorted by insertion: `sort()` allocates a work array on every call,
 * which for the hundreds of thousands of small objects of a large document made most of the
 * garbage canonical JSON left.
 */
function sortKeys(keys: string[]): string[] {
  const n = keys.length;
  if (n > INSERTION_SORT_MAX) return keys.sort();
  for (let i = 1; i < n; i++) {
    const key = keys[i] as string;
    let j = i - 1;
    if ((keys[j] as string) <= key) continue;
    while (j >= 0 && (keys[j] as string) > key) {
      keys[j + 1] = keys[j] as string;
      j--;
    }
    keys[j + 1] = key;
  }
  return keys;
}
