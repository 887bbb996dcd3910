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
import fs from 'node:fs';
import { chmod, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, posix } from 'node:path';
import git, { type TreeEntry } from 'isomorphic-git';
import { parse as parseYaml } from 'yaml';

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
    const { tree } = await git.readTree({ fs, gitdir: store.gitdir, oid: current.oid, cache });
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
  const { commit } = await git.readCommit({ fs, gitdir: store.gitdir, oid: input.commit, cache });
  const folder = partsOf(input.path).join('/');
  await mkdir(input.dir, { recursive: true });
  const written = new Set<string>();
  let files = 0;

  const writeEntry = async (path: string, entry: { oid: string; type: string; mode: string }) => {
    input.signal?.throwIfAborted();
    const full = join(input.dir, ...partsOf(path));
    if (entry.type === 'tree') {
      await mkdir(full, { recursive: true });
      const { tree } = await git.readTree({ fs, gitdir: store.gitdir, oid: entry.oid, cache });
      for (const child of tree) await writeEntry(path ? `${path}/${child.path}` : child.path, child);
      return;
    }
    // Symlinks (120000) and submodules (commit entries) are not followed, as in a job before.
    if (entry.type !== 'blob' || entry.mode === '120000' || written.has(path)) return;
    written.add(path);
    const { blob } = await git.readBlob({ fs, gitdir: store.gitdir, oid: entry.oid, cache });
    await mkdir(join(full, '..'), { recursive: true });
    await writeFile(full, blob);
    if (entry.mode === '100755') await chmod(full, 0o755);
    files++;
  };

  const folderEntry = await entryAt(store, cache, commit.tree, partsOf(folder));
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
    const entry = await entryAt(store, cache, commit.tree, partsOf(source));
    if (!entry) continue; // Missing: the import names the path it cannot read.
    await writeEntry(source, entry);
    paths.push(source);
  }
  return { paths, files };
}

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

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
  const cache = {};
  const { gitdir } = store;
  const { commit } = await git.readCommit({ fs, gitdir, oid: input.base, cache });
  const parts = partsOf(input.path);
  const old = await entryAt(store, cache, commit.tree, parts);

  const writeDirTree = async (dir: string, oldTree: string | undefined): Promise<string> => {
    input.signal?.throwIfAborted();
    const before = new Map<string, TreeEntry>();
    if (oldTree)
      for (const e of (await git.readTree({ fs, gitdir, oid: oldTree, cache })).tree) before.set(e.path, e);
    const entries: TreeEntry[] = [];
    for (const item of await readdir(dir, { withFileTypes: true })) {
      if (item.name === '.git') continue;
      const full = join(dir, item.name);
      const was = before.get(item.name);
      if (item.isDirectory()) {
        const oid = await writeDirTree(full, was?.type === 'tree' ? was.oid : undefined);
        // Git keeps no empty directories.
        if (oid !== EMPTY_TREE) entries.push({ mode: '040000', path: item.name, oid, type: 'tree' });
      } else if (item.isFile()) {
        const bytes = await readFile(full);
        const executable = ((await stat(full)).mode & 0o111) !== 0;
        let oid = blobOid(bytes);
        if (was?.type !== 'blob' || was.oid !== oid) oid = await git.writeBlob({ fs, gitdir, blob: bytes });
        entries.push({ mode: executable ? '100755' : '100644', path: item.name, oid, type: 'blob' });
      }
    }
    const unchanged =
      oldTree !== undefined &&
      entries.length === before.size &&
      entries.every((e) => {
        const b = before.get(e.path);
        return b !== undefined && b.oid === e.oid && b.mode === e.mode;
      });
    return unchanged ? oldTree : git.writeTree({ fs, gitdir, tree: entries });
  };

  /** `root` with the subtree at `at` replaced by `oid`; returns the new root tree. */
  const graft = async (root: string | undefined, at: string[], oid: string): Promise<string> => {
    const [head, ...rest] = at;
    if (head === undefined) return oid;
    const tree = root ? (await git.readTree({ fs, gitdir, oid: root, cache })).tree : [];
    const existing = tree.find((e) => e.path === head && e.type === 'tree');
    const child = await graft(existing?.oid, rest, oid);
    if (existing?.oid === child) return root!;
    const others = tree.filter((e) => e.path !== head);
    return git.writeTree({
      fs,
      gitdir,
      tree: [...others, { mode: '040000', path: head, oid: child, type: 'tree' }],
    });
  };

  const folderTree = await writeDirTree(input.folderDir, old?.type === 'tree' ? old.oid : undefined);
  const tree = await graft(commit.tree, parts, folderTree);
  if (tree === commit.tree) return undefined;
  input.signal?.throwIfAborted();
  const who = { ...input.author, timestamp: Math.floor(input.now.getTime() / 1000), timezoneOffset: 0 };
  return git.writeCommit({
    fs,
    gitdir,
    commit: { message: input.message, tree, parent: [input.base], author: who, committer: who },
  });
}
