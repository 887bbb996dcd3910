/**
 * The files an external $ref may reach (--allow-external-refs), and reading them. A $ref resolves only to
 * the same kind of source as the document: http(s) URLs from a document fetched over http(s) (another
 * origin only when it is not a loopback, private or internal address), files under the document's own
 * directory from a document read from disk. Never a local file from a remote document: that would let
 * whoever serves the document copy the importing machine's files into the folder.
 */
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { SvcError } from '../../core/svc-error.js';
import { readOpenApiSource, type SourceText } from './openapi-source.js';
import { isPrivateHost } from './private-address.js';

/** The document's origin (URL or absolute path) as a URL, the base its $refs resolve against. */
export function documentUrl(origin: string): URL {
  return /^https?:\/\//i.test(origin) ? new URL(origin) : pathToFileURL(origin);
}

/** Where `ref`, written in the file at `base`, points: an absolute URL without its fragment. */
export function refTarget(base: URL, ref: string): URL | undefined {
  try {
    const target = new URL(ref, base);
    target.hash = '';
    return target;
  } catch {
    return undefined;
  }
}

/** Why the document at `document` may not follow a $ref to `target`; undefined when it may. */
export function externalRefRefusal(document: URL, target: URL): string | undefined {
  if (document.protocol === 'http:' || document.protocol === 'https:') {
    if (target.protocol !== 'http:' && target.protocol !== 'https:') {
      return `a document fetched over ${document.protocol.slice(0, -1)} may refer only to http(s) URLs, not to ${target.protocol} ones`;
    }
    if (target.origin !== document.origin && isPrivateHost(target)) {
      return `it points at a local or private address (${target.host}) other than the document's own`;
    }
    return undefined;
  }
  if (target.protocol !== 'file:') {
    return 'a local document may refer only to files under its own directory';
  }
  return outside(dirname(fileURLToPath(document)), fileURLToPath(target));
}

function outside(dir: string, path: string): string | undefined {
  const rel = relative(dir, path);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    return `it leaves the document's directory ${dir}`;
  }
  return undefined;
}

/** Reads an allowed target with the same limits as the document itself; a symlink may not lead outside. */
export async function readExternalRef(document: URL, target: URL): Promise<SourceText> {
  if (target.protocol === 'file:') {
    const dir = dirname(fileURLToPath(document));
    const [realDir, realTarget] = await Promise.all([
      realpath(dir),
      realpath(fileURLToPath(target)).catch(() => fileURLToPath(target)),
    ]);
    const leaves = outside(realDir, realTarget);
    if (leaves) {
      throw new SvcError('SPEC_EXTERNAL_REF', `$ref target ${target.href} is a link: ${leaves}`, {
        place: { file: fileURLToPath(target) },
      });
    }
    return readOpenApiSource(fileURLToPath(target), { cwd: dir });
  }
  return readOpenApiSource(target.href, { cwd: '/' });
}
