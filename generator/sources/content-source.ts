/**
 * Reads a repository's content directories (spec 2.5) from a local checkout: the I/O edge of
 * content import. Only Skills/ Prompts/ Widgets/ Resources/ Docs/ are read (capitalized or
 * lowercase, returned capitalized); Docs/ is walked up to three directories deep and deeper
 * directories are not walked (spec 2.5 rule 3), the other kinds are flat. Only files a kind
 * can hold are read (.md; .md/.mdx in Docs; .html/.json in Widgets): images and other assets
 * beside them are not content. Hidden entries (".gitkeep") are skipped. A symbolic link is
 * refused outright, wherever it points: the importer must never read outside the checkout.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  CONTENT_DIRS,
  type ContentDir,
  classifyContentPath,
  MAX_DOC_DEPTH,
} from '../../folder/content-items.js';

export interface RawFile {
  /** Relative to the content root, '/' separators, capitalized kind directory: "Docs/guides/webhooks.md". */
  path: string;
  text: string;
}

export interface ReadContentOptions {
  /** Largest file read, in bytes (default 2 MiB); a larger one is refused with SOURCE_TOO_LARGE. */
  maxFileBytes?: number;
  /** Most files read (default 5,000); more is refused with SOURCE_TOO_LARGE. */
  maxFiles?: number;
}

export async function readContentDir(dir: string, opts: ReadContentOptions = {}): Promise<RawFile[]> {
  const maxFileBytes = opts.maxFileBytes ?? 2 * 1024 * 1024;
  const maxFiles = opts.maxFiles ?? 5_000;
  let root: string;
  try {
    root = await realpath(dir);
    if (!(await stat(root)).isDirectory()) throw new Error('not a directory');
  } catch (e) {
    throw new SvcError('SOURCE_NOT_FOUND', `content directory ${dir} does not exist or is not a directory`, {
      place: { file: dir },
      cause: e,
    });
  }

  const out = new Map<string, { text: string; from: string }>();

  const walk = async (
    realDir: string,
    canonical: string,
    actual: string,
    depth: number,
    kind: ContentDir,
  ) => {
    const entries = await readdir(realDir, { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith('.')) continue;
      const actualRel = `${actual}/${entry.name}`;
      const canonicalRel = `${canonical}/${entry.name}`;
      const full = join(realDir, entry.name);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        throw new SvcError('CONTENT_PATH_UNSAFE', 'symbolic links are not followed in content directories', {
          place: { file: actualRel },
        });
      }
      if (info.isDirectory()) {
        if (kind === 'Docs' && depth < MAX_DOC_DEPTH)
          await walk(full, canonicalRel, actualRel, depth + 1, kind);
        continue;
      }
      if (!info.isFile()) continue;
      const shape = classifyContentPath(canonicalRel);
      if (!shape || 'tooDeep' in shape) continue;
      if (!isInside(root, full)) {
        throw new SvcError('CONTENT_PATH_UNSAFE', 'file resolves outside the content directory', {
          place: { file: actualRel },
        });
      }
      if (info.size > maxFileBytes) {
        throw new SvcError('SOURCE_TOO_LARGE', `content file is larger than ${maxFileBytes} bytes`, {
          place: { file: actualRel },
        });
      }
      if (out.size >= maxFiles) {
        throw new SvcError('SOURCE_TOO_LARGE', `content directory has more than ${maxFiles} files`, {
          place: { file: actualRel },
        });
      }
      const previous = out.get(canonicalRel);
      if (previous) {
        throw new SvcError('CONTENT_INVALID', `${previous.from} and ${actualRel} are the same item`, {
          place: { file: actualRel },
        });
      }
      out.set(canonicalRel, { text: await readFile(full, 'utf8'), from: actualRel });
    }
  };

  const top = await readdir(root, { withFileTypes: true });
  for (const kind of CONTENT_DIRS) {
    for (const name of [kind, kind.toLowerCase()]) {
      if (!top.some((e) => e.name === name)) continue;
      const full = join(root, name);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        throw new SvcError('CONTENT_PATH_UNSAFE', 'symbolic links are not followed in content directories', {
          place: { file: name },
        });
      }
      if (info.isDirectory()) await walk(full, kind, name, 0, kind);
    }
  }

  return [...out.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, { text }]) => ({ path, text }));
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
}
