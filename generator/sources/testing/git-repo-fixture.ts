import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { cp, mkdir, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * A real repository for git-source tests: a work tree under `<root>/work` and its bare copy
 * under `<root>/repos/<name>.git`, which a loopback smart-HTTP server serves. Made with the git
 * binary, so what svc reads is what git itself wrote.
 */
export interface RepoFixture {
  work: string;
  bare: string;
  /** Writes files (path → text; null removes), commits them and pushes to the bare copy; returns the commit id. */
  commit(files: Record<string, string | null>, message?: string): string;
  /** Adds a symbolic link and commits it. */
  link(path: string, target: string): Promise<string>;
  copyIn(from: string, to: string): Promise<void>;
}

const IDENTITY = ['-c', 'user.name=t', '-c', 'user.email=t@example.test', '-c', 'commit.gpgsign=false'];

export async function makeRepo(root: string, name: string, branch = 'main'): Promise<RepoFixture> {
  const work = join(root, 'work', name);
  const bare = join(root, 'repos', `${name}.git`);
  await mkdir(work, { recursive: true });
  await mkdir(dirname(bare), { recursive: true });
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', [...IDENTITY, ...args], {
      cwd,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  git(work, 'init', '-q', '-b', branch);
  execFileSync('git', ['init', '-q', '--bare', '-b', branch, bare]);
  git(work, 'remote', 'add', 'origin', bare);
  const finish = (message: string) => {
    git(work, 'add', '-A');
    git(work, 'commit', '-q', '--allow-empty', '-m', message);
    git(work, 'push', '-q', 'origin', branch);
    return git(work, 'rev-parse', 'HEAD');
  };
  return {
    work,
    bare,
    commit(files, message = 'change') {
      for (const [path, text] of Object.entries(files)) {
        const full = join(work, path);
        if (text === null) rmSync(full, { recursive: true, force: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, text);
        }
      }
      return finish(message);
    },
    async link(path, target) {
      await mkdir(dirname(join(work, path)), { recursive: true });
      await symlink(target, join(work, path));
      return finish('link');
    },
    async copyIn(from, to) {
      await cp(from, join(work, to), { recursive: true });
    },
  };
}
