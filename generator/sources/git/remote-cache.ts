/**
 * A bare repository that caches one remote (a git source's, a control service repository's): named
 * after the URL under a cache directory the caller owns (mode 0700, since isomorphic-git trusts the
 * objects it finds), with that URL as its `origin`.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import git from 'isomorphic-git';

/** Where the cache of `url` lives under `cacheDir`. */
export function remoteCacheDir(cacheDir: string, url: string): string {
  return join(resolve(cacheDir), `${createHash('sha256').update(url).digest('hex').slice(0, 24)}.git`);
}

/** Makes the cache at `gitdir` a bare repository whose origin is `url` (created when missing). */
export async function initRemoteCache(gitdir: string, url: string): Promise<void> {
  if (!fs.existsSync(join(gitdir, 'HEAD'))) {
    await mkdir(gitdir, { recursive: true, mode: 0o700 });
    await git.init({ fs, gitdir, bare: true, defaultBranch: 'main' });
  }
  await git.addRemote({ fs, gitdir, remote: 'origin', url, force: true });
}
