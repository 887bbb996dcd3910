/** A documentation page's title when its frontmatter has none: the text of its first heading. */
import type { Heading, Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const markdown = unified().use(remarkParse).freeze();

// A line that could be a heading (ATX "# x", or a setext underline below a line of text).
const CANDIDATE = /^ {0,3}(?:#{1,6}(?:[ \t]|$)|=+[ \t]*$|-+[ \t]*$)/m;

export function firstHeading(body: string): string | undefined {
  const found = CANDIDATE.exec(body);
  if (!found) return undefined;
  // Most pages open with their heading: parse only up to it (and the line after, for setext)
  // before parsing a long page whole.
  const end = body.indexOf('\n', body.indexOf('\n', found.index) + 1);
  const prefix = end === -1 ? body : body.slice(0, end);
  return headingText(prefix) ?? (prefix.length < body.length ? headingText(body) : undefined);
}

function headingText(markdownText: string): string | undefined {
  const tree = markdown.parse(markdownText) as Root;
  const heading = findHeading(tree);
  if (!heading) return undefined;
  const text = textOf(heading).replace(/\s+/g, ' ').trim();
  return text === '' ? undefined : text;
}

function findHeading(node: Nodes): Heading | undefined {
  if (node.type === 'heading') return node;
  if ('children' in node) {
    for (const child of node.children) {
      const found = findHeading(child as Nodes);
      if (found) return found;
    }
  }
  return undefined;
}

function textOf(node: Nodes): string {
  if ('value' in node && typeof node.value === 'string' && node.type !== 'html') return node.value;
  if ('children' in node) return (node.children as Nodes[]).map(textOf).join('');
  return '';
}
