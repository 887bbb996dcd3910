/**
 * Real git repositories for tests (the action's, the control service's), made with the git CLI in
 * a temporary directory: a bare "origin", a work tree cloned from it, helpers to write files and
 * commit. No network.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export interface TestRepo {
  root: string;
  /** Work tree (what actions/checkout gives the action). */
  dir: string;
  /** Bare repository used as `origin`. */
  origin: string;
  git(...args: string[]): string;
  write(files: Record<string, string | null>): void;
  commit(message: string): string;
  cleanup(): void;
}

const IDENTITY = ['-c', 'user.name=Test', '-c', 'user.email=test@example.test', '-c', 'commit.gpgsign=false'];

export function createTestRepo(): TestRepo {
  const root = mkdtempSync(join(tmpdir(), 'svc-action-'));
  const origin = join(root, 'origin.git');
  const dir = join(root, 'work');
  const run = (cwd: string, args: string[]) =>
    execFileSync('git', [...IDENTITY, ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  run(root, ['init', '-q', '--bare', '-b', 'main', origin]);
  run(root, ['init', '-q', '-b', 'main', dir]);
  run(dir, ['remote', 'add', 'origin', origin]);
  const repo: TestRepo = {
    root,
    dir,
    origin,
    git: (...args) => run(dir, args).trim(),
    write(files) {
      for (const [path, text] of Object.entries(files)) {
        const full = join(dir, path);
        if (text === null) rmSync(full, { force: true });
        else {
          mkdirSync(dirname(full), { recursive: true });
          writeFileSync(full, text);
        }
      }
    },
    commit(message) {
      run(dir, ['add', '-A']);
      run(dir, ['commit', '-q', '--allow-empty', '-m', message]);
      return run(dir, ['rev-parse', 'HEAD']).trim();
    },
    cleanup: () => rmSync(root, { recursive: true, force: true }),
  };
  return repo;
}
