/**
 * What an import job needs of a commit, and nothing more: the server folder's subtree and the
 * files its `config.yaml` names beside it (a local OpenAPI document, or its whole directory when
 * external `$ref`s are allowed, and a content directory), written to a scratch directory at their
 * places in the repository, so relative paths resolve as they do in a checkout. The other folders
 * of the repository are never read: a job beside two large folders costs what its own folder costs.
 *
 * The commit goes the other way: the folder on disk becomes blobs and trees, a file whose bytes
 * are the ones already at the base commit keeps its blob (nothing is written for it), a directory
 * that did not change keeps its tree, and the new folder tree replaces the old one in the base's
 * root tree. The commit's diff touches the folder only.
 *
 * Objects are read through one isomorphic-git cache per call, so a packed repository's index and
 * pack are read once, not once per object.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import {
  applyChanges,
  commitTree,
  type FileChanges,
  type GitTreeEntry as TreeEntry,
  readBlob,
  readTreeEntries,
  treeFiles,
  writeBlob,
  writeCommit,
} from '../../generator/sources/git/index.js';

/** Where the objects are (a repository's git directory). */
export interface ObjectStore {
  gitdir: string;
}

/** A path of the repository ('' for its root) as `/`-separated parts. */
function partsOf(path: string): string[] {
  return path.split('/').filter((p) => p !== '' && p !== '.');
}

/**
 * `rel`, written in the folder at `folder`, as a path of the repository; undefined for a URL, an
 * absolute path or one that climbs out of the repository (those are not the repository's to give).
 */
function inRepository(folder: string, rel: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(rel) || isAbsolute(rel) || rel.startsWith('/')) return undefined;
  const joined = posix.normalize(posix.join(folder || '.', rel.replace(/\\/g, '/')));
  if (joined === '..' || joined.startsWith('../')) return undefined;
  return joined === '.' ? '' : joined.replace(/\/+$/, '');
}

/**
 * The paths of the repository (files or directories) that the import of the folder at `folder`
 * reads besides the folder itself, from the text of its `config.yaml`. Only an `openapi` source
 * reads local files; git, raw-URL and app-builder sources read over the network.
 */
export function sourcePaths(folder: string, configText: string | undefined): string[] {
  if (configText === undefined) return [];
  let config: unknown;
  try {
    config = parseYaml(configText, { maxAliasCount: 100 });
  } catch {
    return []; // The import names what is wrong with config.yaml.
  }
  const source = (config as { source?: Record<string, unknown> } | null)?.source;
  if (source?.kind !== 'openapi') return [];
  const paths: string[] = [];
  if (typeof source.location === 'string' && source.location.trim() !== '') {
    const document = inRepository(folder, source.location.trim());
    if (document !== undefined) {
      // A local document's external $refs reach files under its own directory.
      paths.push(source.allowExternalRefs === true ? posix.dirname(document).replace(/^\.$/, '') : document);
    }
  }
  if (typeof source.contentDir === 'string' && source.contentDir.trim() !== '') {
    const content = inRepository(folder, source.contentDir.trim());
    if (content !== undefined) paths.push(content);
  }
  return paths;
}

/** The tree entry at `parts` under the tree `root`; undefined when there is none. */
async function entryAt(
  store: ObjectStore,
  cache: object,
  root: string,
  parts: string[],
): Promise<{ oid: string; type: TreeEntry['type']; mode: string } | undefined> {
  let current = { oid: root, type: 'tree' as TreeEntry['type'], mode: '040000' };
  for (const name of parts) {
    if (current.type !== 'tree') return undefined;
    const tree = await readTreeEntries({ gitdir: store.gitdir, cache }, current.oid);
    const entry = tree.find((e) => e.path === name);
    if (!entry) return undefined;
    current = entry;
  }
  return current;
}

export interface MaterializeInput {
  commit: string;
  /** The server folder, a path of the repository. */
  path: string;
  /** The scratch directory: files land at their repository paths under it. */
  dir: string;
  /** Checked between files: an aborted job stops writing. */
  signal?: AbortSignal;
}

/**
 * Writes the folder at `path` of `commit`, and the sources its config.yaml names, under `dir`.
 * Returns the repository paths written from (the folder first). A folder the commit does not
 * have writes nothing: the import then says the folder is missing.
 */
export async function materializeFolder(
  store: ObjectStore,
  input: MaterializeInput,
): Promise<{ paths: string[]; files: number }> {
  const cache = {};
  const root = await commitTree({ gitdir: store.gitdir, cache }, input.commit);
  const folder = partsOf(input.path).join('/');
  await mkdir(input.dir, { recursive: true });
  const written = new Set<string>();
  let files = 0;

  const writeEntry = async (path: string, entry: { oid: string; type: string; mode: string }) => {
    input.signal?.throwIfAborted();
    const full = join(input.dir, ...partsOf(path));
    if (entry.type === 'tree') {
      await mkdir(full, { recursive: true });
      const tree = await readTreeEntries({ gitdir: store.gitdir, cache }, entry.oid);
      for (const child of tree) await writeEntry(path ? `${path}/${child.path}` : child.path, child);
      return;
    }
    // Symlinks (120000) and submodules (commit entries) are not followed, as in a job before.
    if (entry.type !== 'blob' || entry.mode === '120000' || written.has(path)) return;
    written.add(path);
    const blob = await readBlob({ gitdir: store.gitdir, cache }, entry.oid);
    await mkdir(join(full, '..'), { recursive: true });
    await writeFile(full, blob);
    if (entry.mode === '100755') await chmod(full, 0o755);
    files++;
  };

  const folderEntry = await entryAt(store, cache, root, partsOf(folder));
  if (folderEntry?.type !== 'tree') return { paths: [], files: 0 };
  await writeEntry(folder, folderEntry);
  const paths = [folder];
  const configPath = folder ? `${folder}/config.yaml` : 'config.yaml';
  let configText: string | undefined;
  try {
    configText = await readFile(join(input.dir, ...partsOf(configPath)), 'utf8');
  } catch {
    configText = undefined;
  }
  for (const source of sourcePaths(folder, configText)) {
    if (source === folder || (folder && source.startsWith(`${folder}/`))) continue;
    const entry = await entryAt(store, cache, root, partsOf(source));
    if (!entry) continue; // Missing: the import names the path it cannot read.
    await writeEntry(source, entry);
    paths.push(source);
  }
  return { paths, files };
}

/** The id git gives a blob of these bytes. */
function blobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex');
}

export interface CommitFolderInput {
  base: string;
  path: string;
  folderDir: string;
  message: string;
  author: { name: string; email: string };
  now: Date;
  signal?: AbortSignal;
}

/**
 * Commits `folderDir` as the folder at `path` on top of `base`; undefined when the tree does not
 * change. Only the folder's objects are written, and only those whose bytes changed.
 */
export async function commitFolder(
  store: ObjectStore,
  input: CommitFolderInput,
): Promise<string | undefined> {
  const objects = { gitdir: store.gitdir, cache: {} };
  const root = await commitTree(objects, input.base);
  const folder = partsOf(input.path).join('/');
  const prefix = folder ? `${folder}/` : '';
  const old = await entryAt(store, objects.cache, root, partsOf(folder));
  const before = await treeFiles(objects, old?.type === 'tree' ? old.oid : undefined, prefix);
  // Every file of the old folder goes, unless the directory holds it again.
  const changes: FileChanges = new Map([...before.keys()].map((p) => [p, null]));
  const walk = async (dir: string, at: string): Promise<void> => {
    input.signal?.throwIfAborted();
    for (const item of await readdir(dir, { withFileTypes: true })) {
      if (item.name === '.git') continue;
      const full = join(dir, item.name);
      if (item.isDirectory()) await walk(full, `${at}${item.name}/`);
      else if (item.isFile()) {
        const bytes = await readFile(full);
        const mode = ((await stat(full)).mode & 0o111) !== 0 ? '100755' : '100644';
        const was = before.get(`${at}${item.name}`);
        // A file whose bytes are the ones at the base keeps its blob: nothing is written for it.
        let oid = blobOid(bytes);
        if (was?.oid !== oid) oid = await writeBlob(objects, bytes);
        if (was?.oid === oid && was.mode === mode) changes.delete(`${at}${item.name}`);
        else changes.set(`${at}${item.name}`, { oid, mode });
      }
    }
  };
  await walk(input.folderDir, prefix);
  const tree = await applyChanges(objects, root, changes);
  if (tree === root) return undefined;
  input.signal?.throwIfAborted();
  return writeCommit(objects, tree, [input.base], {
    message: input.message,
    author: input.author,
    now: input.now,
  });
}
