/**
 * Re-import of content items (spec 2.5 rules 6-8; issue 4 part 2). Items match by kind and
 * name. A folder item whose files still hash to what the last import wrote is the import's
 * to update (keeping its enabled flag and sort order); any other (created or edited by hand)
 * is never overwritten: the repository file is skipped, and the report says so.
 */
import type { ContentItem, ContentItems, ContentKind, DocItem, WidgetItem } from '../../folder/model.js';
import type { ContentChange } from '../../schemas/types.js';
import type { MergeNote } from './merge-notes.js';

type AnyItem = ContentItem<{ enabled?: boolean; sortOrder?: number }> | DocItem | WidgetItem;

const KINDS: ContentKind[] = ['skills', 'prompts', 'resources', 'docs', 'widgets'];

export function itemFiles(item: AnyItem): string[] {
  return 'sidecarFile' in item ? [item.file, item.sidecarFile] : [item.file];
}

function userFlags(item: AnyItem): { enabled?: boolean; sortOrder?: number } {
  return 'sidecar' in item ? item.sidecar : item.frontmatter;
}

function withUserFlags<T extends AnyItem>(item: T, from: AnyItem): T {
  const prev = userFlags(from);
  const apply = (meta: { enabled?: boolean; sortOrder?: number }) => {
    const out = { ...meta, enabled: prev.enabled === true };
    if (prev.sortOrder === undefined) delete out.sortOrder;
    else out.sortOrder = prev.sortOrder;
    return out;
  };
  if ('sidecar' in item) return { ...item, sidecar: apply(item.sidecar) };
  return { ...item, frontmatter: apply((item as ContentItem<{ enabled?: boolean }>).frontmatter) };
}

function sameContent(a: AnyItem, b: AnyItem): boolean {
  if ('sidecar' in a && 'sidecar' in b)
    return a.html === b.html && JSON.stringify(a.sidecar) === JSON.stringify(b.sidecar);
  if ('frontmatter' in a && 'frontmatter' in b) {
    return (
      a.body === b.body &&
      JSON.stringify(a.frontmatter) === JSON.stringify(b.frontmatter) &&
      a.file === b.file
    );
  }
  return false;
}

export interface ContentMergeInput {
  previous?: ContentItems;
  /** This import's items, or undefined when this import reads no content (every folder item stays as is). */
  content?: ContentItems;
  /** path → content hash (see content-hashes.ts) of what the last import wrote. */
  lastWritten: Record<string, string>;
  /** path → content hash of each content file in the folder now. */
  currentHashes: Record<string, string>;
}

export interface ContentMergeResult {
  content: ContentItems;
  notes: MergeNote[];
  /** Folder files that must stay byte for byte as they are (items kept from the folder). */
  keptFiles: string[];
}

export function mergeContent(input: ContentMergeInput): ContentMergeResult {
  const out: ContentItems = { skills: [], prompts: [], resources: [], docs: [], widgets: [] };
  const notes: MergeNote[] = [];
  const keptFiles: string[] = [];
  const note = (change: ContentChange) => notes.push({ kind: 'content', change });

  const pristine = (item: AnyItem) =>
    itemFiles(item).every(
      (f) => input.lastWritten[f] !== undefined && input.lastWritten[f] === input.currentHashes[f],
    );
  const handMade = (item: AnyItem) => itemFiles(item).every((f) => input.lastWritten[f] === undefined);

  for (const kind of KINDS) {
    const list = out[kind] as AnyItem[];
    const previous = (input.previous?.[kind] ?? []) as AnyItem[];
    const incoming = (input.content?.[kind] ?? []) as AnyItem[];
    const prevByName = new Map(previous.map((i) => [i.name, i]));
    const newNames = new Set(incoming.map((i) => i.name));
    const keep = (item: AnyItem) => {
      list.push(item);
      keptFiles.push(...itemFiles(item));
    };

    for (const item of incoming) {
      const prev = prevByName.get(item.name);
      if (!prev) {
        list.push({ ...item, ...disabled(item) } as AnyItem);
        note({ kind, name: item.name, file: item.file, action: 'added' });
        continue;
      }
      if (!pristine(prev)) {
        keep(prev);
        note({
          kind,
          name: item.name,
          file: prev.file,
          action: 'skipped',
          reason: handMade(prev)
            ? 'created by hand in the folder: the repository file was skipped'
            : 'edited by hand since the last import: the repository file was skipped',
        });
        continue;
      }
      const merged = withUserFlags(item, prev);
      list.push(merged);
      if (!sameContent(merged, prev)) note({ kind, name: item.name, file: item.file, action: 'updated' });
    }

    for (const prev of previous) {
      if (newNames.has(prev.name)) continue;
      if (!input.content) {
        keep(prev);
        continue;
      }
      if (pristine(prev) && !userFlags(prev).enabled) {
        note({
          kind,
          name: prev.name,
          file: prev.file,
          action: 'removed',
          reason: 'no longer in the repository',
        });
        continue;
      }
      keep(prev);
      const why = handMade(prev)
        ? null
        : userFlags(prev).enabled
          ? 'no longer in the repository, kept because it is enabled'
          : 'no longer in the repository, kept because it was edited by hand';
      if (why) note({ kind, name: prev.name, file: prev.file, action: 'kept', reason: why });
    }
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  return { content: out, notes, keptFiles: keptFiles.sort() };
}

/** Imported items arrive disabled (spec 2.5 rule 6). */
function disabled(item: AnyItem): Partial<AnyItem> {
  if ('sidecar' in item) return { sidecar: { ...item.sidecar, enabled: false } };
  return {
    frontmatter: { ...(item as ContentItem<object>).frontmatter, enabled: false },
  } as Partial<AnyItem>;
}
