/**
 * Turns the text of a source into a plain object, deciding JSON or YAML by content, never by
 * file extension (spec 2.2: "the extension is informational").
 */
import type { parse as ParseYaml } from 'yaml';
import { SvcError } from '../../core/svc-error.js';
import type { SourceText } from '../sources/index.js';
import { rememberDecodedJson } from './decoded-json.js';
import { MAX_DOCUMENT_DEPTH, tooDeepError, tooDeepInValue, tooDeepInYaml } from './nesting-depth.js';
import { type CollectedRefs, rememberRefs } from './ref-walk.js';

/** Default YAML alias limit: enough for real documents, far below a "billion laughs" expansion. */
export const DEFAULT_MAX_ALIAS_COUNT = 100;

/** yaml is loaded only for documents that are not JSON (most large ones are). */
async function loadYaml(): Promise<{
  parse: typeof ParseYaml;
  YAMLParseError: typeof import('yaml').YAMLParseError;
}> {
  const module = await import('yaml');
  return { parse: module.parse, YAMLParseError: module.YAMLParseError };
}

export async function decodeText(
  source: SourceText,
  maxAliasCount = DEFAULT_MAX_ALIAS_COUNT,
): Promise<unknown> {
  const start = source.text.search(/\S/);
  if (start === -1) {
    throw new SvcError('SOURCE_NOT_JSON_OR_YAML', `${source.origin} is empty`, { place: placeOf(source) });
  }
  const first = source.text[start];
  if (first === '<' && looksLikeHtml(source.text.slice(start, start + 2048))) {
    throw new SvcError(
      'SOURCE_NOT_JSON_OR_YAML',
      `got an HTML page, not an OpenAPI document, from ${source.origin}; give the address of the JSON or YAML document itself`,
      { place: placeOf(source) },
    );
  }
  const value =
    first === '{' || first === '[' ? await decodeJson(source) : await decodeYaml(source, maxAliasCount);
  const refs: CollectedRefs = { internal: [], external: [] };
  const deep = tooDeepInValue(value, MAX_DOCUMENT_DEPTH, refs);
  if (deep !== undefined) throw tooDeepError(source.origin, deep);
  if (value !== null && typeof value === 'object') rememberRefs(value, refs);
  return value;
}

async function decodeJson(source: SourceText): Promise<unknown> {
  try {
    const value: unknown = JSON.parse(source.text);
    rememberDecodedJson(source.text, value);
    return value;
  } catch (cause) {
    // `{openapi: 3.0.0, ...}` is YAML flow style, not JSON; only report JSON's error when
    // YAML cannot read it either.
    try {
      const { parse } = await loadYaml();
      const yaml = parse(source.text, { maxAliasCount: 0, uniqueKeys: false });
      if (yaml !== null && typeof yaml === 'object') return yaml;
    } catch {
      // fall through to the JSON error, which is the clearer one for a document starting with {
    }
    const message = cause instanceof Error ? cause.message : String(cause);
    const position = positionOf(message, source.text);
    throw new SvcError('SOURCE_NOT_JSON_OR_YAML', `${source.origin} is not valid JSON: ${message}`, {
      place: { ...placeOf(source), ...position },
      cause,
    });
  }
}

async function decodeYaml(source: SourceText, maxAliasCount: number): Promise<unknown> {
  const { parse, YAMLParseError } = await loadYaml();
  try {
    // uniqueKeys off: many real documents repeat a key and every other tool takes the last one.
    return parse(source.text, { maxAliasCount, uniqueKeys: false, prettyErrors: true });
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    if (cause instanceof RangeError || /maximum call stack/i.test(message)) {
      // yaml composes recursively: a document deep enough overflows the stack before it can be measured.
      const deep = tooDeepInYaml(source.text);
      if (deep !== undefined) throw tooDeepError(source.origin, deep);
    }
    if (/alias/i.test(message) && /resource exhaustion|excessive/i.test(message)) {
      throw new SvcError(
        'SOURCE_YAML_BOMB',
        `${source.origin} uses more YAML aliases than the limit of ${maxAliasCount} (a YAML bomb?)`,
        { place: placeOf(source), cause },
      );
    }
    const pos = cause instanceof YAMLParseError ? cause.linePos?.[0] : undefined;
    // yaml's pretty message is "<reason> at line L, column C:" then the excerpt; keep both.
    throw new SvcError(
      'SOURCE_NOT_JSON_OR_YAML',
      `${source.origin} is neither JSON nor valid YAML: ${message.trimEnd()}`,
      { place: { ...placeOf(source), ...(pos ? { line: pos.line, column: pos.col } : {}) }, cause },
    );
  }
}

/** A page from a browser-facing URL (a documentation portal, a login page), not a document. */
function looksLikeHtml(head: string): boolean {
  return /^<(!doctype\s+html|html|head|body|!--)/i.test(head) || /<(html|head|body)[\s>]/i.test(head);
}

function placeOf(source: SourceText): { file?: string; url?: string } {
  return /^https?:\/\//i.test(source.origin) ? { url: source.origin } : { file: source.origin };
}

/** Node's JSON errors say "at position N" (and newer ones "line L column C"). */
function positionOf(message: string, text: string): { line?: number; column?: number } {
  const lc = /line (\d+) column (\d+)/.exec(message);
  if (lc) return { line: Number(lc[1]), column: Number(lc[2]) };
  const at = /position (\d+)/.exec(message);
  if (!at) return {};
  const offset = Number(at[1]);
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
