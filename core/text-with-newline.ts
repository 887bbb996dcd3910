/**
 * A document's text and that text followed by a newline, held as one string. Tools/openapi.json
 * is most often the source document and a final newline (a 2-space JSON source, GitHub's): built
 * as `${text}\n`, it is a second copy of the document once V8 flattens it for writing or hashing
 * (26 MB for GitHub). A reader that decodes the bytes and a newline together instead keeps the
 * document as a slice of that one string, and the renderer asks for the string back here.
 */
let last: { text: string; withNewline: string } | undefined;

/**
 * The text of `withNewline` (a string ending in "\n") without its newline, a slice that shares its
 * characters; `textWithNewline` gives `withNewline` back for it.
 */
export function rememberTextWithNewline(withNewline: string): string {
  const text = withNewline.slice(0, -1);
  last = { text, withNewline };
  return text;
}

/** `${text}\n`, the very string a reader remembered for this text when there is one. */
export function textWithNewline(text: string): string {
  const entry = last;
  if (entry !== undefined && entry.text.length === text.length && entry.text === text)
    return entry.withNewline;
  return `${text}\n`;
}
