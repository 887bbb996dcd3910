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

/** Told when a description could not be converted and was kept as plain text instead. */
export type FallbackListener = (text: string, error: unknown) => void;

let loading: Promise<MarkdownConverter> | undefined;

/**
 * The HTML → Markdown converter (rehype-parse → rehype-remark → remark-gfm → remark-stringify),
 * loaded once. GFM lets tables, strikethrough and task lists be written as Markdown. It never
 * throws: a description the libraries cannot convert (an element no handler knows) is kept as
 * plain text, and `onFallback` is told, so the import can say so; one description never fails
 * an import.
 */
export async function loadHtmlToMarkdown(onFallback?: FallbackListener): Promise<MarkdownConverter> {
  return withTextFallback(await loadStrict(), onFallback);
}

/** A converter that keeps a text it cannot convert as plain text (and tells onFallback). */
export function withTextFallback(
  strict: MarkdownConverter,
  onFallback?: FallbackListener,
): MarkdownConverter {
  const failed = new Map<string, { text: string; error: unknown }>();
  return (text: string) => {
    try {
      return strict(text);
    } catch (error) {
      let known = failed.get(text);
      if (known === undefined) {
        known = { text: htmlToPlainText(text), error };
        failed.set(text, known);
      }
      onFallback?.(text, known.error);
      return known.text;
    }
  };
}

function loadStrict(): Promise<MarkdownConverter> {
  loading ??= (async () => {
    const [
      { unified },
      { default: rehypeParse },
      { default: rehypeRemark },
      { default: remarkGfm },
      { default: remarkStringify },
    ] = await Promise.all([
      import('unified'),
      import('rehype-parse'),
      import('rehype-remark'),
      import('remark-gfm'),
      import('remark-stringify'),
    ]);
    const processor = unified()
      .use(rehypeParse, { fragment: true })
      .use(rehypeRemark)
      .use(remarkGfm)
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

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * The text of an HTML fragment without any library: tags out (block ends and cells become line
 * breaks and spaces), scripts and styles dropped, the common entities decoded. Cannot throw.
 */
export function htmlToPlainText(html: string): string {
  return html
    .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, '')
    .replace(/<!--[\s\S]*?-->/g, '')
    .replace(/<\/(p|div|tr|li|h[1-6]|table|pre|blockquote|dt|dd)\s*>|<br\s*\/?>/gi, '\n')
    .replace(/<\/(td|th)\s*>/gi, ' ')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, name: string) => {
      if (name[0] === '#') {
        const code =
          name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number(name.slice(1));
        return Number.isInteger(code) && code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      return ENTITIES[name.toLowerCase()] ?? whole;
    })
    .replace(/[ \t]+/g, ' ')
    .replace(/ *\n */g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
