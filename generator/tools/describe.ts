/** Tool and parameter descriptions: trimmed and capped so tools/list stays small. */
export const MAX_TOOL_DESCRIPTION = 600;
export const MAX_PROPERTY_DESCRIPTION = 90;

export function toolDescription(
  endpoint: { summary?: string; description?: string; deprecated: boolean; method: string; path: string },
  max = MAX_TOOL_DESCRIPTION,
): string {
  const summary = endpoint.summary?.trim() ?? '';
  const description = endpoint.description?.trim() ?? '';
  let text: string;
  if (summary && description && !description.startsWith(summary)) text = `${summary}\n\n${description}`;
  else text = description || summary || `${endpoint.method} ${endpoint.path}`;
  if (endpoint.deprecated) text = `(deprecated) ${text}`;
  return capText(text, max);
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
