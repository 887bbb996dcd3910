/**
 * The paths a folder's config.yaml names (a local `source.location`, `source.contentDir`) are
 * written by whoever can push to the repository, not by whoever runs the import: a control
 * service job, the Action's merge mode or CI. So each must resolve inside the repository the
 * folder lives in, after symbolic links, or the import reads and publishes that machine's files.
 * Paths given on the command line (--openapi, --content) are the caller's own and are not checked.
 */
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { SvcError } from '../../core/svc-error.js';

/** The top of the git work tree holding `dir` (a `.git` directory or file), or undefined. */
export function repositoryRoot(dir: string): string | undefined {
  let at = resolve(dir);
  for (;;) {
    if (existsSync(join(at, '.git'))) return at;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** The real path of `path`, or of its nearest existing parent joined with the rest. */
async function realOrNearest(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    const up = dirname(path);
    if (up === path) return path;
    return join(await realOrNearest(up), relative(up, path));
  }
}

/**
 * Refuses `value` (config.yaml's `field`, relative to the folder `dir`) unless it resolves inside
 * `root`, symbolic links followed. The message names the field and the value as written, never
 * where a link leads on this machine.
 */
export async function confinePath(opts: {
  root: string;
  dir: string;
  value: string;
  field: string;
}): Promise<void> {
  const place = { file: 'config.yaml', field: opts.field };
  const refuse = (why: string) =>
    new SvcError(
      'FOLDER_INVALID',
      `${opts.field} "${opts.value}" ${why}: a folder may only name files inside its repository (give a file elsewhere on the command line instead)`,
      { place },
    );
  if (isAbsolute(opts.value) || /^[A-Za-z]:[\\/]/.test(opts.value) || /^file:/i.test(opts.value)) {
    throw refuse('is an absolute path');
  }
  const root = await realOrNearest(resolve(opts.root));
  const written = resolve(opts.dir, opts.value);
  if (!inside(resolve(opts.root), written) && !inside(root, written)) {
    throw refuse('points outside the repository');
  }
  if (!inside(root, await realOrNearest(written))) throw refuse('is a link leading outside the repository');
}
