/**
 * Where content lives in a folder or a content directory: the kind directories and which file a
 * path is. No parser here, so a reader that only lists content files (the source reader, the
 * unchanged import) loads none.
 */

/** Item names (and each segment of a doc slug): spec 2.5 rule 2, safe in a file name and a URI. */
export const ITEM_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$/;
/** Directories allowed below Docs/ (spec 8: recursion depth 3). */
export const MAX_DOC_DEPTH = 3;

export const CONTENT_DIRS = ['Skills', 'Prompts', 'Resources', 'Docs', 'Widgets'] as const;
export type ContentDir = (typeof CONTENT_DIRS)[number];

/** Which content file a canonical path is, or undefined when it is not content. */
export function classifyContentPath(
  path: string,
): { dir: ContentDir; name: string; ext: string } | { dir: 'Docs'; tooDeep: true } | undefined {
  const segments = path.split('/');
  const dir = segments[0] as ContentDir;
  if (!CONTENT_DIRS.includes(dir)) return undefined;
  const last = segments[segments.length - 1] ?? '';
  const dot = last.lastIndexOf('.');
  if (dot <= 0) return undefined;
  const ext = last.slice(dot).toLowerCase();
  const stem = last.slice(0, dot);
  if (dir === 'Docs') {
    if (ext !== '.md' && ext !== '.mdx') return undefined;
    if (segments.length - 2 > MAX_DOC_DEPTH) return { dir: 'Docs', tooDeep: true };
    return { dir, name: [...segments.slice(1, -1), stem].join('/'), ext };
  }
  if (segments.length !== 2) return undefined;
  if (dir === 'Widgets') return ext === '.html' || ext === '.json' ? { dir, name: stem, ext } : undefined;
  return ext === '.md' ? { dir, name: stem, ext } : undefined;
}
