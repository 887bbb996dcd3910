/**
 * Tool and property descriptions. By default a description is kept whole (HTML turned into
 * Markdown): everything arrives disabled, so what tools/list weighs is the user's choice of
 * tools. `compact` (config.yaml for a whole folder, `compact: true` for one tool) keeps the old
 * short form: the tool description capped, a property's description cut to its first sentence.
 */
import { keepText, type MarkdownConverter } from './html-to-markdown.js';

/** Which form a tool's descriptions take. */
export type DescriptionStyle = 'full' | 'compact';

/** The style, and how HTML descriptions become Markdown (keepText when the document has none). */
export interface TextForm {
  style: DescriptionStyle;
  markdown: MarkdownConverter;
}

export const FULL_TEXT: TextForm = { style: 'full', markdown: keepText };
export const COMPACT_TEXT: TextForm = { style: 'compact', markdown: keepText };

/** Cap of a compact tool description. */
export const MAX_TOOL_DESCRIPTION = 600;
/** Cap of a compact parameter description. */
export const MAX_PROPERTY_DESCRIPTION = 90;
/** Cap of a compact description nested inside a schema. */
export const MAX_NESTED_DESCRIPTION = 100;
/** The tool file schema's limit on `description` (hosts choke on larger texts). */
export const MAX_FULL_DESCRIPTION = 8000;

export function toolDescription(
  endpoint: { summary?: string; description?: string; deprecated: boolean; method: string; path: string },
  form: TextForm = FULL_TEXT,
): string {
  const summary = form.markdown(endpoint.summary?.trim() ?? '');
  const description = form.markdown(endpoint.description?.trim() ?? '');
  let text: string;
  if (summary && description && !description.startsWith(summary)) text = `${summary}\n\n${description}`;
  else text = description || summary || `${endpoint.method} ${endpoint.path}`;
  if (endpoint.deprecated) text = `(deprecated) ${text}`;
  return capText(text, form.style === 'compact' ? MAX_TOOL_DESCRIPTION : MAX_FULL_DESCRIPTION);
}

/** A parameter's or schema property's description in the given style. */
export function propertyDescription(text: string, form: TextForm, max: number): string {
  const markdown = form.markdown(text.trim());
  return form.style === 'compact' ? firstSentence(markdown, max) : capText(markdown, MAX_FULL_DESCRIPTION);
}

/**
 * A property's description: its first sentence (a parameter's gist), within max characters.
 */
export function firstSentence(text: string, max: number): string {
  const key = `${max}\u0000${text}`;
  let result = sentenceCache.get(key);
  if (result === undefined) {
    result = computeFirstSentence(text, max);
    // Real documents repeat the same parameter descriptions hundreds of times.
    if (sentenceCache.size > 50_000) sentenceCache.clear();
    sentenceCache.set(key, result);
  }
  return result;
}

const sentenceCache = new Map<string, string>();

function computeFirstSentence(text: string, max: number): string {
  const clean = text.replace(/\s+/g, ' ').trim();
  const end = /[.!?](\s|$)/.exec(clean);
  const sentence = end && end.index + 1 >= 20 ? clean.slice(0, end.index + 1) : clean;
  return capText(sentence, max);
}

/**
 * Cuts at the last sentence end (or else word break) before the cap and marks the cut with
 * an ellipsis, so a shortened text still reads as a sentence.
 */
export function capText(text: string, max: number): string {
  const clean = text
    .replace(/\r\n?/g, '\n')
    .replace(/[ \t]+\n/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
  if (clean.length <= max) return clean;
  const window = clean.slice(0, max - 1);
  const sentence = Math.max(window.lastIndexOf('. '), window.lastIndexOf('.\n'));
  if (sentence >= max * 0.5) return window.slice(0, sentence + 1);
  const space = window.lastIndexOf(' ');
  return `${(space >= max * 0.5 ? window.slice(0, space) : window).trimEnd()}…`;
}
