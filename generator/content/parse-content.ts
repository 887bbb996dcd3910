/**
 * Repository content files → ContentItems (spec 2.5), pure. Directory names may be capitalized
 * or lowercase; items arrive disabled whatever the file says (rule 6); a repository sortOrder
 * is kept. Every problem in every file is reported, each naming the file (and line).
 */
import { SvcError } from '../../core/svc-error.js';
import { CONTENT_DIRS, type ContentEntry, parseContentEntries } from '../../folder/content-items.js';
import { unsafePathReason } from '../../folder/folder-paths.js';
import type { ContentItems } from '../../folder/model.js';
import type { RawFile } from '../sources/content-source.js';

export type ParseContentResult = { ok: true; items: ContentItems } | { ok: false; errors: SvcError[] };

const CANONICAL_DIR = new Map<string, string>(
  CONTENT_DIRS.flatMap((d) => [[d, d] as const, [d.toLowerCase(), d] as const]),
);

/** "docs/intro.mdx" → "Docs/intro.mdx"; undefined when the file is not in a content directory. */
export function canonicalContentPath(path: string): string | undefined {
  const slash = path.indexOf('/');
  if (slash <= 0) return undefined;
  const dir = CANONICAL_DIR.get(path.slice(0, slash));
  return dir ? `${dir}${path.slice(slash)}` : undefined;
}

export function parseContent(files: readonly RawFile[]): ParseContentResult {
  const errors: SvcError[] = [];
  const entries: ContentEntry[] = [];
  const from = new Map<string, string>();
  for (const file of files) {
    const reason = unsafePathReason(file.path);
    if (reason) {
      errors.push(
        new SvcError('CONTENT_PATH_UNSAFE', `refused content file: ${reason}`, {
          place: { file: file.path },
        }),
      );
      continue;
    }
    const path = canonicalContentPath(file.path);
    if (!path) continue;
    const first = from.get(path);
    if (first !== undefined) {
      errors.push(
        new SvcError('CONTENT_INVALID', `${first} and ${file.path} are the same item`, {
          place: { file: file.path },
        }),
      );
      continue;
    }
    from.set(path, file.path);
    entries.push({ path, text: file.text });
  }
  const parsed = parseContentEntries(entries, {
    code: 'CONTENT_INVALID',
    pathCode: 'CONTENT_PATH_UNSAFE',
    disable: true,
  });
  // Errors name the file as the repository spells it ("docs/intro.mdx"), not its canonical path.
  errors.push(...parsed.errors.map((e) => relocate(e, from)));
  return errors.length > 0 ? { ok: false, errors } : { ok: true, items: parsed.items };
}

function relocate(error: SvcError, from: ReadonlyMap<string, string>): SvcError {
  const original = error.place.file === undefined ? undefined : from.get(error.place.file);
  if (original === undefined || original === error.place.file) return error;
  return new SvcError(error.code, error.message, {
    place: { ...error.place, file: original },
    details: error.details,
    cause: error.cause,
  });
}
