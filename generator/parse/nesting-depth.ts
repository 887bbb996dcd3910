/**
 * How deep a document may nest objects and arrays. Real API descriptions stay shallow (GitHub's 13 MB
 * description nests 21 levels), but a hostile one can nest 100,000: the `yaml` package's composer and
 * svc's own recursive stages (ref walking, schema conversion, validation) then run out of stack and the
 * import dies as an internal error with no place. Every document is measured without recursion (on the
 * parsed value, or on yaml's CST when composing it already overflowed) and refused past the limit, with
 * the JSON pointer of the first object or array beyond it.
 */
import { CST, Parser } from 'yaml';
import { SvcError } from '../../core/svc-error.js';
import { escapePointer } from './ref-walk.js';

/**
 * Levels of objects and arrays, the document itself being level 1. Twelve times the deepest real
 * description we know, and well below where `yaml` overflows Node's default stack (about 800 levels).
 */
export const MAX_DOCUMENT_DEPTH = 256;

interface Frame {
  node: unknown;
  depth: number;
  parent: Frame | undefined;
  segment: string;
}

function pointerOf(frame: Frame): string {
  const segments: string[] = [];
  for (let f: Frame | undefined = frame; f?.parent; f = f.parent) segments.push(escapePointer(f.segment));
  return segments.length === 0 ? '' : `/${segments.reverse().join('/')}`;
}

/** The pointer of the first object or array nested deeper than `limit`, or undefined. */
export function tooDeepInValue(value: unknown, limit = MAX_DOCUMENT_DEPTH): string | undefined {
  const stack: Frame[] = [{ node: value, depth: 1, parent: undefined, segment: '' }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node, depth } = frame;
    if (node === null || typeof node !== 'object') continue;
    if (depth > limit) return pointerOf(frame);
    // Children pushed in reverse so the first one found too deep is the first in document order.
    const entries = Array.isArray(node) ? node.map((v, i) => [String(i), v] as const) : Object.entries(node);
    for (let i = entries.length - 1; i >= 0; i--) {
      const [segment, child] = entries[i] as readonly [string, unknown];
      if (child !== null && typeof child === 'object')
        stack.push({ node: child, depth: depth + 1, parent: frame, segment });
    }
  }
  return undefined;
}

type Token = CST.Token;
/** What the walk needs of a block map, block sequence or flow collection item. */
type CollectionItem = { key?: Token | null; value?: Token };

/** The same measure on yaml's concrete syntax tree, which yaml builds without recursion. */
export function tooDeepInYaml(text: string, limit = MAX_DOCUMENT_DEPTH): string | undefined {
  for (const token of new Parser().parse(text)) {
    if (token.type !== 'document' || !token.value) continue;
    const stack: Frame[] = [{ node: token.value, depth: 1, parent: undefined, segment: '' }];
    for (let frame = stack.pop(); frame; frame = stack.pop()) {
      const node = frame.node as Token;
      const items = itemsOf(node);
      if (!items) continue;
      if (frame.depth > limit) return pointerOf(frame);
      const isSeq =
        node.type === 'block-seq' || (node.type === 'flow-collection' && node.start.source === '[');
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i] as CollectionItem;
        if (!item.value) continue;
        const key = item.key;
        const segment = isSeq || !key ? String(i) : keyText(key);
        stack.push({ node: item.value, depth: frame.depth + 1, parent: frame, segment });
      }
    }
  }
  return undefined;
}

function itemsOf(token: Token): readonly CollectionItem[] | undefined {
  if (token.type === 'block-map' || token.type === 'block-seq' || token.type === 'flow-collection')
    return token.items;
  return undefined;
}

function keyText(key: Token | null): string {
  if (!key) return '';
  try {
    const scalar = CST.resolveAsScalar(key);
    if (scalar) return scalar.value;
  } catch {
    // a key that is itself a collection: name it by its source
  }
  return CST.stringify(key).trim();
}

export function tooDeepError(origin: string, pointer: string, limit = MAX_DOCUMENT_DEPTH): SvcError {
  const where = /^https?:\/\//i.test(origin) ? { url: origin } : { file: origin };
  return new SvcError(
    'SPEC_INVALID',
    `the document nests objects and arrays more than ${limit} levels deep; svc refuses documents this deep (real API descriptions stay far below)`,
    { place: { ...where, field: pointer } },
  );
}
