/**
 * Secret redaction. The upstream secret must never reach a response, a log line or an
 * error, even when the upstream echoes it back; every text that leaves the runtime and may
 * contain upstream bytes passes through a Redactor.
 *
 * A Redactor replaces the secret in every form the runtime itself can put on the wire or an
 * echoing upstream can plausibly write back: raw and re-cased, percent-encoded (with the very
 * encoder that builds the URL), form-encoded, JSON- and HTML-escaped, hex, and base64 at every
 * byte alignment (so `Basic base64(user:secret)` and `Bearer …` wrappers are caught too).
 * Decoded values (JSON strings, binary bodies) are checked with the helpers below.
 */
import { encodeStrict } from './percent-encode.js';

export type Redactor = (text: string) => string;

export const REDACTED = '[REDACTED]';

/** The redactor of a runtime without secrets: callers may skip work that only redaction needs. */
export const noRedaction: Redactor = (text) => text;

const utf8 = new TextEncoder();

function everyChar(text: string, one: (codePoint: number) => string): string {
  let out = '';
  for (const ch of text) out += one(ch.codePointAt(0)!);
  return out;
}

function jsonUnicodeEscape(text: string, all: boolean): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    out += all || unit > 0x7e ? `\\u${unit.toString(16).padStart(4, '0')}` : text[i];
  }
  return out;
}

function htmlNamed(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * The base64 characters that encode the secret whatever precedes or follows it: for each of the
 * three byte alignments, the whole 3-byte groups that lie inside the secret.
 */
function base64Cores(bytes: Uint8Array): string[] {
  const cores: string[] = [];
  for (let skip = 0; skip < 3; skip++) {
    const whole = Math.floor((bytes.length - skip) / 3) * 3;
    if (whole < 3) continue;
    const core = Buffer.from(bytes.subarray(skip, skip + whole)).toString('base64');
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores;
}

/** Forms of the secret matched case-insensitively (hex digits, escapes and entities have no case). */
export function textForms(secret: string): string[] {
  const bytes = utf8.encode(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const percentAll = [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('');
  return [
    secret,
    secret.toUpperCase(),
    secret.toLowerCase(),
    encodeURIComponent(secret),
    encodeStrict(secret),
    encodeStrict(secret).replace(/%20/g, '+'),
    new URLSearchParams({ k: secret }).toString().slice(2),
    encodeURI(secret),
    percentAll,
    json,
    json.replace(/\//g, '\\/'),
    jsonUnicodeEscape(secret, false),
    jsonUnicodeEscape(secret, false).replace(/\//g, '\\/'),
    jsonUnicodeEscape(secret, true),
    htmlNamed(secret),
    htmlNamed(secret).replace(/&#39;/g, '&apos;'),
    everyChar(secret, (cp) => `&#${cp};`),
    everyChar(secret, (cp) => `&#x${cp.toString(16)};`),
    Buffer.from(bytes).toString('hex'),
    // The UTF-8 bytes seen one byte per character: how a binary body is searched.
    Buffer.from(bytes).toString('latin1'),
  ];
}

function escapeRegExp(text: string): string {
  return text.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

function alternation(needles: Iterable<string>, flags: string): RegExp | undefined {
  const list = [...new Set(needles)].filter((n) => n.length > 0).sort((a, b) => b.length - a.length);
  return list.length === 0 ? undefined : new RegExp(list.map(escapeRegExp).join('|'), flags);
}

/** Replaces every occurrence of each secret (in every form listed above) with [REDACTED]. */
export function createRedactor(secrets: readonly (string | undefined)[]): Redactor {
  const anyCase: string[] = [];
  const exact: string[] = [];
  for (const secret of secrets) {
    // Very short secrets would redact ordinary text; they are still replaced, since leaking wins over noise.
    if (!secret) continue;
    anyCase.push(...textForms(secret));
    // base64 is case-sensitive; a case-blind match of a short core would hit ordinary words.
    exact.push(...base64Cores(utf8.encode(secret)));
  }
  const folded = alternation(anyCase, 'gi');
  const literal = alternation(exact, 'g');
  if (!folded && !literal) return noRedaction;
  const replace = (text: string) => {
    let out = text;
    if (folded) out = out.replace(folded, REDACTED);
    if (literal) out = out.replace(literal, REDACTED);
    return out;
  };
  return (text) => {
    let out = replace(text);
    for (const view of DECODED_VIEWS) {
      if (!view.hint.test(out)) continue;
      const decoded = view.decode(out);
      if (decoded === out) continue;
      const safe = replace(decoded);
      // Only a text whose decoded reading hid a secret is handed on decoded.
      if (safe !== decoded) out = safe;
    }
    return out;
  };
}

function tolerantPercentDecode(text: string): string {
  return text.replace(/(?:%[0-9a-f]{2})+/gi, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

const NAMED_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function htmlDecode(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (whole, ref: string) => {
    const lower = ref.toLowerCase();
    if (!lower.startsWith('#')) return NAMED_ENTITIES[lower] ?? whole;
    const cp = lower.startsWith('#x') ? Number.parseInt(lower.slice(2), 16) : Number(lower.slice(1));
    return cp <= 0x10ffff ? String.fromCodePoint(cp) : whole;
  });
}

function jsonEscapesDecode(text: string): string {
  return text
    .replace(/\\u([0-9a-f]{4})/gi, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)))
    .replace(/\\\//g, '/');
}

/**
 * Readings of a text in which an encoded secret may hide piecewise (a few characters escaped,
 * the rest plain), which no fixed list of whole encodings can cover.
 */
const DECODED_VIEWS: readonly { hint: RegExp; decode: (text: string) => string }[] = [
  { hint: /%[0-9a-f]{2}/i, decode: tolerantPercentDecode },
  { hint: /&#?[0-9a-z]+;/i, decode: htmlDecode },
  { hint: /\\[u/]/, decode: jsonEscapesDecode },
];

/** Whether the text holds a secret in any form the redactor knows. */
export function holdsSecret(redact: Redactor, text: string): boolean {
  return redact(text) !== text;
}

/** Whether raw bytes (a binary or image body) hold a secret, searched byte for byte and as UTF-8. */
export function bytesHoldSecret(redact: Redactor, bytes: Uint8Array): boolean {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return holdsSecret(redact, buffer.toString('latin1')) || holdsSecret(redact, buffer.toString('utf8'));
}

/**
 * Redacts every string of a decoded JSON value, keys included: the form a client sees after
 * parsing, whatever escapes the upstream wrote. Returns the same value when nothing changed.
 */
export function redactValue(redact: Redactor, value: unknown): unknown {
  if (typeof value === 'string') return redact(value);
  // A numeric secret can come back as a JSON number.
  if (typeof value === 'number') return holdsSecret(redact, String(value)) ? REDACTED : value;
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = redactValue(redact, item);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (typeof value === 'object' && value !== null) {
    let changed = false;
    const entries = Object.entries(value).map(([key, item]) => {
      const safeKey = redact(key);
      const next = redactValue(redact, item);
      if (safeKey !== key || next !== item) changed = true;
      return [safeKey, next] as const;
    });
    // fromEntries defines own properties: a "__proto__" key stays data, as JSON.parse made it.
    return changed ? Object.fromEntries(entries) : value;
  }
  return value;
}
