/** A documentation page's title when its frontmatter has none: the text of its first heading. */
import type { Heading, Nodes, Root } from 'mdast';
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const markdown = unified().use(remarkParse).freeze();

export function firstHeading(body: string): string | undefined {
  const tree = markdown.parse(body) as Root;
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
