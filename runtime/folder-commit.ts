/**
 * The git commit a folder on disk was read at: HEAD of the repository holding it, only when
 * nothing under the folder differs from HEAD (else the commit would not be what is served).
 * Undefined when git is missing, the folder is not in a repository, or it has local changes.
 */
import { execFile } from 'node:child_process';

function git(dir: string, args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, ...args], { timeout: 5000 }, (error, stdout) =>
      resolve(error ? undefined : stdout.trim()),
    );
  });
}

export async function folderCommit(dir: string): Promise<string | undefined> {
  const head = await git(dir, ['rev-parse', '--verify', '-q', 'HEAD']);
  if (!head || !/^[0-9a-f]{40,64}$/.test(head)) return undefined;
  const changes = await git(dir, ['status', '--porcelain', '--untracked-files=all', '--', '.']);
  return changes === '' ? head : undefined;
}
