/**
 * Descriptions written as HTML (Stripe's `<p>…<code>Charge</code>…</p>`) become Markdown, which
 * every MCP host renders or a model reads as plain text. Only a text that is HTML as a whole
 * (it opens with an element) is converted: a Markdown description with an inline `<br>` or
 * `<details>` stays as written, since converting it would escape its Markdown.
 *
 * The unified libraries cost ~150 ms to load, so they are loaded only for a document that holds
 * something HTML-like (`loadHtmlToMarkdown`), and the converter is handed to the tool stage as
 * an input: without one, text is kept as it is.
 */

/** Turns a description into Markdown (or returns it unchanged when it is not HTML). */
export type MarkdownConverter = (text: string) => string;

/** No conversion: for documents that hold no HTML. */
export const keepText: MarkdownConverter = (text) => text;

const HTML_START =
  /^<(p|div|span|section|article|ul|ol|li|dl|table|pre|blockquote|h[1-6]|code|a|b|strong|em|i|br|hr)\b[^>]*>/i;
// In the raw document the same tags may follow a quote or be written \u003c in JSON.
const HTML_ANYWHERE =
  /(<|\\u003c)(p|div|span|section|article|ul|ol|li|dl|table|pre|blockquote|h[1-6]|code|a|b|strong|em|i|br|hr)\b/i;

export function looksLikeHtml(text: string): boolean {
  return HTML_START.test(text.trimStart());
}

/** Whether a raw document may hold a description looksLikeHtml accepts (cheap, may say yes wrongly). */
export function mayContainHtml(documentText: string): boolean {
  return HTML_ANYWHERE.test(documentText);
}

let loading: Promise<MarkdownConverter> | undefined;

/** The HTML → Markdown converter (rehype-parse → rehype-remark → remark-stringify), loaded once. */
export function loadHtmlToMarkdown(): Promise<MarkdownConverter> {
  loading ??= (async () => {
    const [{ unified }, { default: rehypeParse }, { default: rehypeRemark }, { default: remarkStringify }] =
      await Promise.all([
        import('unified'),
        import('rehype-parse'),
        import('rehype-remark'),
        import('remark-stringify'),
      ]);
    const processor = unified()
      .use(rehypeParse, { fragment: true })
      .use(rehypeRemark)
      .use(remarkStringify, { bullet: '-', emphasis: '_', strong: '*', rule: '-', fences: true });
    const cache = new Map<string, string>();
    return (text: string) => {
      if (!looksLikeHtml(text)) return text;
      let result = cache.get(text);
      if (result === undefined) {
        result = String(processor.processSync(text)).trim();
        // Real documents repeat the same descriptions hundreds of times.
        if (cache.size > 20_000) cache.clear();
        cache.set(text, result);
      }
      return result;
    };
  })();
  return loading;
}
