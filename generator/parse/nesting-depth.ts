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
import { type CollectedRefs, escapePointer } from './ref-walk.js';

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

/**
 * The pointer of the first object or array nested deeper than `limit`, or undefined. A walk in
 * document order with one entry per open level (its node, its keys, the next child), not one
 * object per node: GitHub's 13 MB document has about a million nodes. Given `refs`, the same walk
 * collects the $refs as collectRefs does (one walk of the document rather than two).
 */
export function tooDeepInValue(
  value: unknown,
  limit = MAX_DOCUMENT_DEPTH,
  refs?: CollectedRefs,
): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if (limit < 1) return '';
  const nodes: object[] = [value];
  // The keys of an open object; undefined for an open array.
  const keys: (string[] | undefined)[] = [Array.isArray(value) ? undefined : Object.keys(value)];
  const next: number[] = [0];
  if (refs) noteRef(value, refs, '');
  while (nodes.length > 0) {
    const top = nodes.length - 1;
    const node = nodes[top] as Record<string, unknown> & unknown[];
    const names = keys[top];
    const i = next[top] as number;
    if (i >= (names ? names.length : node.length)) {
      nodes.pop();
      keys.pop();
      next.pop();
      continue;
    }
    next[top] = i + 1;
    const child = names ? node[names[i] as string] : node[i];
    if (child === null || typeof child !== 'object') continue;
    // The child sits at level top + 2 (the document is level 1).
    if (top + 2 > limit) return openPointer(keys, next);
    // The child's $ref, in the order collectRefs finds them: its pointer is the open levels'.
    if (refs && !Array.isArray(child) && typeof (child as { $ref?: unknown }).$ref === 'string')
      noteRef(child, refs, openPointer(keys, next));
    nodes.push(child);
    keys.push(Array.isArray(child) ? undefined : Object.keys(child));
    next.push(0);
  }
  return undefined;
}

function noteRef(node: object, refs: CollectedRefs, at: string): void {
  const ref = (node as Record<string, unknown>).$ref;
  if (typeof ref !== 'string' || Array.isArray(node)) return;
  (ref.startsWith('#') ? refs.internal : refs.external).push({ ref, at });
}

/** The pointer of the child last entered at every open level. */
function openPointer(keys: readonly (string[] | undefined)[], next: readonly number[]): string {
  const segments: string[] = [];
  for (let level = 0; level < next.length; level++) {
    const index = (next[level] as number) - 1;
    const names = keys[level];
    segments.push(escapePointer(names ? (names[index] as string) : String(index)));
  }
  return `/${segments.join('/')}`;
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
