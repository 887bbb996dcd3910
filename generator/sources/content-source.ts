/**
 * Reads a repository's content directories (spec 2.5): the I/O edge of content import, from a
 * local checkout (`readContentDir`) or from any other tree, such as a git commit's
 * (`readContentTree`). Only Skills/ Prompts/ Widgets/ Resources/ Docs/ are read (capitalized or
 * lowercase, returned capitalized); Docs/ is walked up to three directories deep and deeper
 * directories are not walked (spec 2.5 rule 3), the other kinds are flat. Only files a kind
 * can hold are read (.md; .md/.mdx in Docs; .html/.json in Widgets): images and other assets
 * beside them are not content. Hidden entries (".gitkeep") are skipped. A symbolic link is
 * refused outright, wherever it points: the importer must never read outside the tree.
 */
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  CONTENT_DIRS,
  type ContentDir,
  classifyContentPath,
  MAX_DOC_DEPTH,
} from '../../folder/content-paths.js';

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

/** One entry of a directory of a content tree. */
export interface TreeEntry {
  name: string;
  type: 'dir' | 'file' | 'symlink' | 'other';
  /** Files: the size in bytes, when known before reading. */
  size?: number;
}

/** A read-only tree of files, addressed by '/'-separated paths relative to its root ('' is the root). */
export interface ContentTree {
  list(dir: string): Promise<TreeEntry[]>;
  read(file: string): Promise<Buffer>;
}

export async function readContentDir(dir: string, opts: ReadContentOptions = {}): Promise<RawFile[]> {
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
  return readContentTree(diskTree(root), opts);
}

export async function readContentTree(tree: ContentTree, opts: ReadContentOptions = {}): Promise<RawFile[]> {
  const maxFileBytes = opts.maxFileBytes ?? 2 * 1024 * 1024;
  const maxFiles = opts.maxFiles ?? 5_000;
  const out = new Map<string, { text: string; from: string }>();
  const unsafe = (file: string) =>
    new SvcError('CONTENT_PATH_UNSAFE', 'symbolic links are not followed in content directories', {
      place: { file },
    });
  const tooLarge = (file: string) =>
    new SvcError('SOURCE_TOO_LARGE', `content file is larger than ${maxFileBytes} bytes`, {
      place: { file },
    });

  const walk = async (canonical: string, actual: string, depth: number, kind: ContentDir) => {
    for (const entry of await tree.list(actual)) {
      if (entry.name.startsWith('.')) continue;
      const actualRel = `${actual}/${entry.name}`;
      const canonicalRel = `${canonical}/${entry.name}`;
      if (entry.type === 'symlink') throw unsafe(actualRel);
      if (entry.type === 'dir') {
        if (kind === 'Docs' && depth < MAX_DOC_DEPTH) await walk(canonicalRel, actualRel, depth + 1, kind);
        continue;
      }
      if (entry.type !== 'file') continue;
      const shape = classifyContentPath(canonicalRel);
      if (!shape || 'tooDeep' in shape) continue;
      if (entry.size !== undefined && entry.size > maxFileBytes) throw tooLarge(actualRel);
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
      const bytes = await tree.read(actualRel);
      if (bytes.byteLength > maxFileBytes) throw tooLarge(actualRel);
      out.set(canonicalRel, { text: bytes.toString('utf8'), from: actualRel });
    }
  };

  const top = await tree.list('');
  for (const kind of CONTENT_DIRS) {
    for (const name of [kind, kind.toLowerCase()]) {
      const entry = top.find((e) => e.name === name);
      if (!entry) continue;
      if (entry.type === 'symlink') throw unsafe(name);
      if (entry.type === 'dir') await walk(kind, name, 0, kind);
    }
  }

  return [...out.entries()]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([path, { text }]) => ({ path, text }));
}

/** A checkout on disk; every file read is checked to resolve inside `root`. */
function diskTree(root: string): ContentTree {
  const full = (rel: string) => (rel === '' ? root : join(root, ...rel.split('/')));
  return {
    async list(dir) {
      const entries = await readdir(full(dir), { withFileTypes: true });
      const out: TreeEntry[] = [];
      for (const entry of entries) {
        const info = await lstat(join(full(dir), entry.name));
        const type = info.isSymbolicLink()
          ? 'symlink'
          : info.isDirectory()
            ? 'dir'
            : info.isFile()
              ? 'file'
              : 'other';
        out.push({ name: entry.name, type, ...(type === 'file' ? { size: info.size } : {}) });
      }
      return out;
    },
    async read(file) {
      const path = full(file);
      if (!isInside(root, path)) {
        throw new SvcError('CONTENT_PATH_UNSAFE', 'file resolves outside the content directory', {
          place: { file },
        });
      }
      return readFile(path);
    },
  };
}

function isInside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !rel.startsWith(sep);
}
