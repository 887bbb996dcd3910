/**
 * YAML reading for folder files: one document, no alias bombs, and a way back from a JSON
 * pointer to the line a person has to fix. Every parse keeps its LineCounter so that schema
 * violations found later (on plain JS values) can still name a line.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, type Node, parseDocument, type Document } from 'yaml';

/** Aliases allowed per document: enough for hand-written anchors, far too few for a "billion laughs". */
export const MAX_ALIAS_COUNT = 100;

export interface YamlProblem {
  message: string;
  line?: number;
  column?: number;
}

export interface ParsedYaml {
  value: unknown;
  doc: Document;
  lines: LineCounter;
  /** Added to every line found, for YAML embedded in a larger file (frontmatter). */
  lineOffset: number;
}

export type YamlParse =
  | { ok: true; parsed: ParsedYaml }
  | { ok: false; problems: YamlProblem[]; bomb: boolean };

export function parseYaml(text: string, lineOffset = 0): YamlParse {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    prettyErrors: false,
    uniqueKeys: true,
    merge: false,
  });
  if (doc.errors.length > 0) {
    return {
      ok: false,
      bomb: false,
      problems: doc.errors.map((e) => {
        const pos = lines.linePos(e.pos[0]);
        // yaml's own messages end with a code excerpt on later lines; the first line is the sentence.
        const message = (e.message.split('\n')[0] ?? e.message).replace(/ at line \d+, column \d+:?$/, '');
        return { message, line: pos.line + lineOffset, column: pos.col };
      }),
    };
  }
  try {
    const value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
    return { ok: true, parsed: { value, doc, lines, lineOffset } };
  } catch (e) {
    const message =
      e instanceof ReferenceError
        ? `too many YAML aliases (over ${MAX_ALIAS_COUNT} expansions): refused as a possible alias bomb`
        : `YAML cannot be read: ${(e as Error).message}`;
    return { ok: false, bomb: e instanceof ReferenceError, problems: [{ message, line: 1 + lineOffset }] };
  }
}

/** JSON pointer → path segments ("/a/b~1c/0" → ["a", "b/c", "0"]). */
export function pointerSegments(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * The 1-based line of the field a JSON pointer names, or of its nearest existing ancestor.
 * With `key: true` the line of the map key itself (for "unknown key" errors).
 */
export function lineOfPointer(parsed: ParsedYaml, pointer: string): number {
  const segments = pointerSegments(pointer);
  let node: unknown = parsed.doc.contents;
  let offset: number | undefined = rangeStart(node);
  for (const seg of segments) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === seg);
      if (!pair) break;
      offset = rangeStart(pair.key) ?? offset;
      node = pair.value;
      // A key whose value is a nested block is reported at the key line; scalars at their own line.
      if (isScalar(node)) offset = rangeStart(node) ?? offset;
    } else if (isSeq(node)) {
      const item = node.items[Number(seg)];
      if (item === undefined) break;
      node = item;
      offset = rangeStart(node) ?? offset;
    } else {
      break;
    }
  }
  if (offset === undefined) return 1 + parsed.lineOffset;
  return parsed.lines.linePos(offset).line + parsed.lineOffset;
}

function rangeStart(node: unknown): number | undefined {
  const range = (node as Node | null | undefined)?.range;
  return range ? range[0] : undefined;
}
