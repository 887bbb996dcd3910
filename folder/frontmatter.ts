/**
 * Splits a content file into YAML frontmatter and body (spec 2.5 rule 1: fenced by `---` lines).
 * gray-matter does the split, but its YAML engine is replaced by ours (alias limit, line
 * numbers) and a language tag after the fence (`---js` would make gray-matter eval the block)
 * is refused before gray-matter ever sees the text.
 */
import matter from 'gray-matter';
import { type ParsedYaml, parseYaml, type YamlProblem } from './yaml-file.js';

export type FrontmatterSplit =
  | { ok: true; data: Record<string, unknown>; body: string; parsed?: ParsedYaml }
  | { ok: false; problems: YamlProblem[] };

const OPEN_LINE = /^---[ \t]*$/;
const TAGGED_OPEN = /^---[ \t]*[A-Za-z]/;

/** Line endings are normalized to LF first: the folder is written with LF only. */
export function splitFrontmatter(text: string): FrontmatterSplit {
  // A byte-order mark (some Windows editors write one) must not hide the opening fence.
  const src = text.replace(/^\uFEFF/, '').replace(/\r\n/g, '\n');
  const firstLine = src.slice(0, src.indexOf('\n') === -1 ? src.length : src.indexOf('\n'));
  if (TAGGED_OPEN.test(firstLine)) {
    return {
      ok: false,
      problems: [
        { message: 'frontmatter must be fenced by a line of exactly "---" (no language tag)', line: 1 },
      ],
    };
  }
  if (!OPEN_LINE.test(firstLine)) return { ok: true, data: {}, body: src };
  const lines = src.split('\n');
  const close = lines.findIndex((l, i) => i > 0 && l === '---');
  if (close === -1) {
    return {
      ok: false,
      problems: [{ message: 'frontmatter opened on line 1 is never closed by a "---" line', line: 1 }],
    };
  }
  // gray-matter closes at the first line that merely starts with "---"; so must we, exactly.
  const early = lines.findIndex((l, i) => i > 0 && i < close && l.startsWith('---'));
  if (early !== -1) {
    return {
      ok: false,
      problems: [
        {
          message: 'a line inside the frontmatter starts with "---": the closing fence must be exactly "---"',
          line: early + 1,
        },
      ],
    };
  }
  let parse: ReturnType<typeof parseYaml> | undefined;
  const file = matter(src, {
    language: 'yaml',
    engines: {
      yaml: (s: string) => {
        // gray-matter hands over the text after the opening "---", starting with the rest of line 1.
        parse = parseYaml(s, 0);
        return {};
      },
    },
  });
  if (!parse) return { ok: true, data: {}, body: file.content };
  if (!parse.ok) return { ok: false, problems: parse.problems };
  const value = parse.parsed.value;
  if (value === null || value === undefined)
    return { ok: true, data: {}, body: file.content, parsed: parse.parsed };
  if (typeof value !== 'object' || Array.isArray(value)) {
    return {
      ok: false,
      problems: [{ message: 'frontmatter must be a YAML mapping (key: value lines)', line: 2 }],
    };
  }
  return { ok: true, data: value as Record<string, unknown>, body: file.content, parsed: parse.parsed };
}
