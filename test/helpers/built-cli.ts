/**
 * The CLI as users run it: the build in dist/ (tsc, and the bundle of `svc serve`), spawned as its
 * own node process. The build is redone when a source file is newer than dist/cli/main.js, under a
 * lock so that test files running in parallel build once.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BUILT_CLI = path.join(REPO_ROOT, 'dist/cli/main.js');
const SOURCE_DIRS = ['cli', 'core', 'folder', 'generator', 'runtime', 'schemas', 'bench', 'control'];

function newestSource(): number {
  let newest = statSync(path.join(REPO_ROOT, 'package.json')).mtimeMs;
  for (const dir of SOURCE_DIRS) {
    for (const file of readdirSync(path.join(REPO_ROOT, dir), { recursive: true, encoding: 'utf8' })) {
      if (/\.(ts|json)$/.test(file))
        newest = Math.max(newest, statSync(path.join(REPO_ROOT, dir, file)).mtimeMs);
    }
  }
  return newest;
}

function fresh(): boolean {
  return existsSync(BUILT_CLI) && statSync(BUILT_CLI).mtimeMs >= newestSource();
}

/** Builds dist/ (scripts/build.mjs) unless it is already newer than every source. */
export async function ensureBuilt(): Promise<void> {
  const lock = path.join(
    tmpdir(),
    `svc-build-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}`,
  );
  for (;;) {
    if (fresh()) return;
    try {
      mkdirSync(lock);
    } catch {
      // A lock left by a killed run (a build takes well under two minutes) is taken over.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 120_000)
        rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 250));
      continue;
    }
    try {
      if (!fresh()) {
        // npm run build's own script: tsc, then the bundle `svc serve` runs from, as users get them.
        execFileSync(process.execPath, [path.join(REPO_ROOT, 'scripts/build.mjs')], {
          cwd: REPO_ROOT,
          stdio: 'inherit',
        });
      }
      return;
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
  }
}

interface SvcOptions {
  cwd: string;
  env?: Record<string, string>;
  bin?: string;
  /** Called with all of stdout so far, each time more of it comes (to wait for a line). */
  onStdout?: (stdout: string) => void;
}

export interface SpawnedRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs `svc <args>` (the built one, or `bin`) to completion. */
export function runSvc(args: readonly string[], options: SvcOptions): Promise<SpawnedRun> {
  return new Promise((resolve, reject) => {
    const child = spawnSvc(args, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      options.onStdout?.(stdout);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningServe {
  url: string;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** Starts `svc serve …` (or any long-running svc command) and resolves with the URL it prints. */
export function startSvc(args: readonly string[], options: SvcOptions): Promise<RunningServe> {
  return new Promise((resolve, reject) => {
    const child = spawnSvc(args, options);
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
      if (url) {
        resolve({
          url,
          output: () => output,
          stop: async () => {
            child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    void exited.then((code) => reject(new Error(`svc exited with ${code} before listening:\n${output}`)));
  });
}

/** `svc <args>`: the built CLI run by this node, or `bin` (an installed `svc`) itself. */
function spawnSvc(args: readonly string[], options: SvcOptions) {
  const command = options.bin ?? process.execPath;
  const argv = options.bin ? [...args] : [BUILT_CLI, ...args];
  return spawn(command, argv, { cwd: options.cwd, env: cleanEnv(options.env) });
}

/** The parent's environment without the variables svc reads, plus `extra`. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(SVC_|MCP_|FLOWCP_)/.test(key)) env[key] = value;
  }
  return { ...env, ...extra };
}
