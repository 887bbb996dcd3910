/**
 * What a content file says, as a hash, for hand-edit detection. `enabled` and `sortOrder` are
 * left out: they are the reviewer's to set (spec 2.5 rule 7), and flipping `enabled` must not
 * turn an imported item into a "hand-edited" one that never receives updates again.
 */
import { createHash } from 'node:crypto';
import type { ContentItem, ContentItems, DocItem, WidgetItem } from '../../folder/model.js';

type AnyItem = ContentItem<object> | DocItem | WidgetItem;

function withoutFlags(meta: object): Record<string, unknown> {
  const { enabled: _enabled, sortOrder: _sortOrder, ...rest } = meta as Record<string, unknown>;
  return rest;
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sorted((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}

function hash(value: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(sorted(value)))
    .digest('hex');
}

/** path → hash of each file of one item. */
export function itemContentHashes(item: AnyItem): Record<string, string> {
  if ('sidecar' in item) {
    return { [item.file]: hash({ html: item.html }), [item.sidecarFile]: hash(withoutFlags(item.sidecar)) };
  }
  return { [item.file]: hash({ frontmatter: withoutFlags(item.frontmatter), body: item.body }) };
}

/** path → hash of every content file of a folder (or of an import). */
export function contentHashes(items: ContentItems): Record<string, string> {
  const out: Record<string, string> = {};
  for (const list of [
    items.skills,
    items.prompts,
    items.resources,
    items.docs,
    items.widgets,
  ] as AnyItem[][]) {
    for (const item of list) Object.assign(out, itemContentHashes(item));
  }
  return out;
}
