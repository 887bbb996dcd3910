/**
 * The shell's reading side: the previous folder from disk, and the source bundle (the document,
 * the files of its external $refs, a git source's commit, the content directory's files) through
 * the source readers. A content
 * directory that cannot be read is kept in the bundle as such: the planner raises it where the
 * import reaches its content, after the document's own problems.
 */
import { isAbsolute, resolve } from 'node:path';
import { readContentDir } from '../sources/content-source.js';
import { confinePath, repositoryRoot } from '../sources/confine-paths.js';
import type { ImportTarget } from './import-target.js';
import type { ImportOptions, PreviousFolder, SourceBundle } from './import-types.js';

export async function readSourceBundle(target: ImportTarget, dir: string): Promise<SourceBundle> {
  const read = await target.source.read();
  const externalRefs = target.allowExternalRefs
    ? await (await import('./read-external-refs.js')).readExternalRefs(read.document)
    : undefined;
  const bundle: SourceBundle = {
    document: read.document,
    ...(read.commit ? { commit: read.commit } : {}),
    ...(externalRefs ? { externalRefs } : {}),
  };
  const contentDir = target.contentDir;
  if (contentDir === undefined) return bundle;
  try {
    const content = read.readContent
      ? await read.readContent()
      : await readContentDir(isAbsolute(contentDir) ? contentDir : resolve(dir, contentDir));
    return { ...bundle, content };
  } catch (error) {
    return { ...bundle, content: { error } };
  }
}

/**
 * Paths written in a config.yaml that came from the repository stay inside it (by default the git
 * work tree holding the folder; `confineTo` names another, or false for none).
 */
export async function confineSource(
  previous: PreviousFolder | undefined,
  opts: ImportOptions,
): Promise<void> {
  const root = opts.confineTo ?? repositoryRoot(opts.dir);
  const source = previous?.folder.config.source;
  if (!root || opts.config || source?.kind !== 'openapi') return;
  if (!opts.location && source.location && !/^https?:\/\//i.test(source.location))
    await confinePath({ root, dir: opts.dir, value: source.location, field: 'source.location' });
  if (opts.contentDir === undefined && source.contentDir !== undefined)
    await confinePath({ root, dir: opts.dir, value: source.contentDir, field: 'source.contentDir' });
}
