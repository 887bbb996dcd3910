/**
 * The value the last JSON source decoded to, for whoever needs that text parsed again in the
 * same import (Tools/openapi.json is the document pretty-printed): GitHub's 10 MB document is
 * parsed once, not twice. The stages after decoding never change the document (a test runs the
 * pipeline and compares), so the value is what parsing the text again would give.
 *
 * The value is held weakly: once the import no longer uses it, it goes, and the caller parses
 * the text again.
 */
let last: { text: string; value: WeakRef<object> } | undefined;

export function rememberDecodedJson(text: string, value: unknown): void {
  last = value !== null && typeof value === 'object' ? { text, value: new WeakRef(value) } : undefined;
}

/** What `JSON.parse(text)` gave when this very text was decoded last, if still held. */
export function decodedJson(text: string): object | undefined {
  const entry = last;
  if (entry === undefined || entry.text.length !== text.length || entry.text !== text) return undefined;
  return entry.value.deref();
}
