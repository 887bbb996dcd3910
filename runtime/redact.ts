/**
 * Secret redaction. The upstream secret must never reach a response, a log line or an
 * error, even when the upstream echoes it back; every text that leaves the runtime and may
 * contain upstream bytes passes through a Redactor.
 *
 * A Redactor replaces the secret in every form the runtime itself can put on the wire or an
 * echoing upstream can plausibly write back: raw and re-cased, percent-encoded (with the very
 * encoder that builds the URL), form-encoded, JSON- and HTML-escaped, hex, base64 and base64url at
 * every byte alignment (so `Basic base64(user:secret)` and `Bearer …` wrappers are caught too), and
 * UTF-16 in either byte order; and, since an upstream may encode a whole URL or JSON document
 * (a pagination cursor, a JWT segment), base64 and hex of the secret as the runtime writes it in a
 * query string and as JSON escapes it (wrappedForms). Every form is computed once, when the redactor is made; per text,
 * one pass of two regular expressions, plus a decoded reading when the text shows a hint of one
 * (percent-escapes, decoded up to three times; entities; JSON escapes; base64 cut into lines;
 * UTF-16 read as UTF-8). Decoded values (JSON strings, binary bodies) are checked with the helpers
 * below.
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

/**
 * The secret as it sits inside a larger text that an upstream may encode whole (base64, base64url
 * or hex of the request URL, as a pagination cursor does; a JWT-style segment of a JSON document):
 * raw, as the runtime itself writes it into a query string (encodeStrict, with either case of hex
 * digits; form and encodeURIComponent spellings), and JSON-escaped. Each is searched in base64 at
 * every alignment and in hex, so the encoding of the whole query string or URL is caught too.
 */
export function wrappedForms(secret: string): string[] {
  const strict = encodeStrict(secret);
  const json = JSON.stringify(secret).slice(1, -1);
  const forms = [
    secret,
    strict,
    strict.replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
    strict.replace(/%20/g, '+'),
    encodeURIComponent(secret),
    new URLSearchParams({ k: secret }).toString().slice(2),
    json,
    json.replace(/\//g, '\\/'),
    jsonUnicodeEscape(secret, false),
  ];
  return [...new Set(forms)];
}

function utf16Forms(secret: string): string[] {
  const little = Buffer.from(secret, 'utf16le');
  const big = Buffer.from(little).swap16();
  return [little, big].flatMap((b) => [b.toString('latin1'), b.toString('utf8')]);
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
  // UTF-16 in both byte orders, seen as bytes (a binary body) and as UTF-8 (an undeclared text).
  const wide: string[] = [];
  for (const secret of secrets) {
    // Very short secrets would redact ordinary text; they are still replaced, since leaking wins over noise.
    if (!secret) continue;
    anyCase.push(...textForms(secret));
    // base64 is case-sensitive; a case-blind match of a short core would hit ordinary words.
    for (const form of wrappedForms(secret)) {
      exact.push(...base64Cores(utf8.encode(form)));
      anyCase.push(Buffer.from(form, 'utf8').toString('hex'));
    }
    wide.push(...utf16Forms(secret));
  }
  const folded = alternation(anyCase, 'gi');
  const literal = alternation(exact, 'g');
  const utf16 = alternation(wide, 'g');
  // A UTF-16 form without a NUL (no character of the secret below U+0100) can hide in any text; the
  // others only in a text with a NUL, and a text without one need not pay for them.
  const utf16Anywhere = wide.some((form) => !form.includes('\0'));
  if (!folded && !literal) return noRedaction;
  const replace = (text: string) => {
    let out = text;
    if (folded) out = out.replace(folded, REDACTED);
    if (literal) out = out.replace(literal, REDACTED);
    if (utf16 && (utf16Anywhere || out.includes('\0'))) out = out.replace(utf16, REDACTED);
    return out;
  };
  /** The text redacted, and handed on decoded when a decoded reading of it hid a secret. */
  const redactReadings = (text: string) => {
    let out = replace(text);
    for (const view of DECODED_VIEWS) {
      let reading = out;
      for (let depth = 0; depth < view.depth && view.hint.test(reading); depth++) {
        const decoded = view.decode(reading);
        if (decoded === reading) break;
        const safe = replace(decoded);
        // Only a text whose decoded reading hid a secret is handed on decoded.
        if (safe !== decoded) {
          out = safe;
          break;
        }
        reading = decoded;
      }
    }
    return out;
  };
  return (text) => {
    const out = redactReadings(text);
    // The same again on the text without what may split an encoded secret (NULs, line breaks).
    const normal = normalise(out);
    if (normal === out) return out;
    const safe = redactReadings(normal);
    return safe === normal ? out : safe;
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
 * the rest plain), which no fixed list of whole encodings can cover. `depth`: how many times a
 * reading is decoded again (a percent-escape of a percent-escape: `%252F`).
 */
const DECODED_VIEWS: readonly { hint: RegExp; decode: (text: string) => string; depth: number }[] = [
  { hint: /%[0-9a-f]{2}/i, decode: tolerantPercentDecode, depth: 3 },
  { hint: /&#?[0-9a-z]+;/i, decode: htmlDecode, depth: 1 },
  { hint: /\\[u/]/, decode: jsonEscapesDecode, depth: 1 },
];

/**
 * Base64 cut into lines (MIME: 76 columns, PEM: 64; LF or CRLF, or their JSON escapes): a break is
 * taken out only between two base64 characters. Normalising once costs one pass, where enumerating
 * every width and offset would multiply the forms.
 */
const BASE64_LINE_BREAK = /([A-Za-z0-9+/_-])(?:\r?\n|\\r\\n|\\n)(?=[A-Za-z0-9+/_-])/g;
const IS_BASE64 = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-')
  IS_BASE64[c.charCodeAt(0)] = 1;

/** Whether the 16 characters before `end` (a CR, or its escape `\r`, aside) are all base64. */
function base64Before(text: string, end: number): boolean {
  let at = end;
  if (text.charCodeAt(at - 1) === 13) at -= 1;
  else if (text.charCodeAt(at - 1) === 114 && text.charCodeAt(at - 2) === 92) at -= 2;
  if (at < 16) return false;
  for (let i = at - 16; i < at; i++) {
    const code = text.charCodeAt(i);
    if (code >= 128 || IS_BASE64[code] === 0) return false;
  }
  return true;
}

/**
 * Whether some line break lies between 16 base64 characters and another one: found from the
 * breaks, since a pattern tried at every position of a long text costs more than the redaction.
 * (An ordinary line ending in a 16-letter word passes too: it then costs a second pass, no more.)
 */
function breaksBase64(text: string): boolean {
  for (const eol of ['\n', '\\n']) {
    for (let at = text.indexOf(eol, 16); at !== -1; at = text.indexOf(eol, at + eol.length)) {
      const next = at + eol.length;
      const after = text.charCodeAt(next);
      if (after < 128 && IS_BASE64[after] === 1 && base64Before(text, at)) return true;
    }
  }
  return false;
}

/**
 * The text without what can split an encoded secret apart: line breaks inside base64, and the NUL
 * beside every ASCII character of UTF-16 text read as UTF-8 or as bytes. Also the same text when
 * neither shows.
 */
function normalise(text: string): string {
  let out = text;
  if (out.includes('\0')) out = out.replace(/\0/g, '');
  if (out.length > 17 && breaksBase64(out)) out = out.replace(BASE64_LINE_BREAK, '$1');
  return out;
}

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
