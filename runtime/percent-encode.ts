/**
 * The one percent-encoder of the runtime. The upstream URL (query, path, form bodies) is
 * built with it, and the redactor derives the encoded form of the secret from it, so the
 * two can never disagree about how a credential looks on the wire.
 */

/** RFC 3986 unreserved stays, everything else percent-encoded (stricter than encodeURIComponent). */
export function encodeStrict(text: string): string {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
