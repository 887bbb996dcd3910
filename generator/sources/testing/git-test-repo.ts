/**
 * Real git repositories for tests (the action's, the control service's), made with the git CLI in
 * a temporary directory: a bare "origin", a work tree cloned from it, helpers to write files and
 * commit. `serve()` puts the origin behind a loopback smart-HTTP server (svc fetches and pushes
 * over HTTP only), as a GitHub checkout's origin is.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { type GitHttpServer, startGitHttpServer } from './git-http-server.js';

export interface TestRepo {
  root: string;
  /** Work tree (what actions/checkout gives the action). */
  dir: string;
  /** Bare repository used as `origin`. */
  origin: string;
  /** Serves `origin` over smart HTTP on loopback (once); its URL (`<server>/origin.git`). */
  serve(options?: { authorize?: (authorization: string | undefined) => boolean }): Promise<string>;
  /** The server `serve()` started (its requests), once started. */
  server(): GitHttpServer | undefined;
  /**
   * A shallow clone of `branch` into `into`, as actions/checkout makes one, whose origin is the
   * served URL (call `serve()` first). Cloned from the bare repository on disk: a synchronous git
   * talking to the server in this same process would wait for it forever.
   */
  checkout(into: string, branch?: string, depth?: number): string;
  git(...args: string[]): string;
  write(files: Record<string, string | null>): void;
  commit(message: string): string;
  cleanup(): Promise<void>;
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
  let http: GitHttpServer | undefined;
  const repo: TestRepo = {
    root,
    dir,
    origin,
    async serve(options = {}) {
      http ??= await startGitHttpServer({ root, ...options });
      return `${http.url}/origin.git`;
    },
    server: () => http,
    checkout(into, branch = 'main', depth = 1) {
      if (!http) throw new Error('serve() the origin before checking it out');
      run(root, ['clone', '-q', `--depth=${depth}`, '--branch', branch, `file://${origin}`, into]);
      run(into, ['remote', 'set-url', 'origin', `${http.url}/origin.git`]);
      return into;
    },
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
    cleanup() {
      const closed = http?.close() ?? Promise.resolve();
      rmSync(root, { recursive: true, force: true });
      return closed;
    },
  };
  return repo;
}
