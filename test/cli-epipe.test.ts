/**
 * `svc … | head`: the reader closes the pipe while svc still writes. svc must not crash with an EPIPE stack
 * trace: it finishes its work (a folder is never left half written because nobody reads the checklist),
 * says nothing more, and exits with the command's own code. The CLI runs as built (bundled with esbuild)
 * in a child process whose stdout or stderr is a pipe closed early, as a shell pipeline does.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundleEntry } from './helpers/bundle-entry.js';
import { svc } from './helpers/run-cli.js';

const root = fileURLToPath(new URL('..', import.meta.url));
let dir: string;
let bundleDir: string | undefined;
let entry: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-epipe-'));
  // Inside the package (dist/ is git-ignored) so the bundle finds the package root, as the installed CLI does.
  mkdirSync(join(root, 'dist'), { recursive: true });
  bundleDir = mkdtempSync(join(root, 'dist', '.cli-epipe-'));
  entry = join(bundleDir, 'svc.mjs');
  await bundleEntry('cli/main.ts', entry);
  writeFileSync(
    join(dir, 'openapi.yaml'),
    readFileSync(new URL('../fixtures/demo/openapi.yaml', import.meta.url)),
  );
}, 60_000);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
  if (bundleDir) rmSync(bundleDir, { recursive: true, force: true });
});

interface Run {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/** Runs the built CLI with one of its output pipes closed by the reader before svc writes (`| true`). */
function runClosing(args: string[], closing: 'stdout' | 'stderr'): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [entry, ...args], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    const closed = closing === 'stdout' ? child.stdout : child.stderr;
    const other = closing === 'stdout' ? child.stderr : child.stdout;
    let stderr = '';
    if (closing === 'stdout') other.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    else other.resume();
    closed.destroy();
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stderr }));
  });
}

describe('svc with its output closed early', () => {
  it('svc --help | true: exits 0 without a stack trace', async () => {
    const run = await runClosing(['--help'], 'stdout');
    expect(run.stderr).toBe('');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(0);
  });

  it('svc init … | true: the folder is written whole and the exit code is the command’s', async () => {
    const run = await runClosing(
      ['init', 'mcp/books', '--name', 'Books', '--openapi', join(dir, 'openapi.yaml')],
      'stdout',
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(join(dir, 'mcp/books/config.yaml'))).toBe(true);
    expect((await svc(['validate', 'mcp/books'], { cwd: dir })).code).toBe(0);
  });

  it('an error with stderr closed keeps its exit code', async () => {
    const run = await runClosing(['no-such-command'], 'stderr');
    expect(run.signal).toBeNull();
    expect(run.code).toBe(2);
  });
});
