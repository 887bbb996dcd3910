/**
 * Descriptions written as HTML (Stripe's `<p>…<code>Charge</code>…</p>`) become Markdown, which
 * every MCP host renders or a model reads as plain text. Only a text that is HTML as a whole
 * (it opens with an element) is converted: a Markdown description with an inline `<br>` or
 * `<details>` stays as written, since converting it would escape its Markdown.
 */
import rehypeParse from 'rehype-parse';
import rehypeRemark from 'rehype-remark';
import remarkStringify from 'remark-stringify';
import { unified } from 'unified';

const HTML_START =
  /^<(p|div|span|section|article|ul|ol|li|dl|table|pre|blockquote|h[1-6]|code|a|b|strong|em|i|br|hr)\b[^>]*>/i;

const processor = unified()
  .use(rehypeParse, { fragment: true })
  .use(rehypeRemark)
  .use(remarkStringify, { bullet: '-', emphasis: '_', strong: '*', rule: '-', fences: true });

const cache = new Map<string, string>();

export function looksLikeHtml(text: string): boolean {
  return HTML_START.test(text.trimStart());
}

/** Markdown for an HTML description; any other text is returned unchanged. */
export function htmlToMarkdown(text: string): string {
  if (!looksLikeHtml(text)) return text;
  let result = cache.get(text);
  if (result === undefined) {
    result = String(processor.processSync(text)).trim();
    // Real documents repeat the same descriptions hundreds of times.
    if (cache.size > 20_000) cache.clear();
    cache.set(text, result);
  }
  return result;
}
