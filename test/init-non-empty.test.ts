/**
 * `svc init` into a directory that already holds a user's files: refused unless --force, and even with
 * --force no file svc did not write is deleted or overwritten (bytes and mode), and a generated file that
 * would collide with one of the user's is left out and named.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from './helpers/run-cli.js';

const demoSpec = readFileSync(new URL('../fixtures/demo/openapi.yaml', import.meta.url), 'utf8');

// The repository, plus a binary file and an executable one inside managed directories.
const USER_FILES: Record<string, Buffer> = {
  'README.md': Buffer.from('# My project\n\nHand-written, not by svc.\n'),
  'Docs/guide.md': Buffer.from('# Guide\n\nMy own guide.\n'),
  'Skills/notes.txt': Buffer.from('notes that must survive\n'),
  'Docs/logo.png': Buffer.from([
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0xfe, 0x00, 0xc3, 0x28,
  ]),
  'Tools/run.sh': Buffer.from('#!/bin/sh\necho hi\n'),
};
const EXECUTABLE = 'Tools/run.sh';

let work: string;
let specPath: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-init-nonempty-'));
  specPath = path.join(work, 'openapi.yaml');
  writeFileSync(specPath, demoSpec);
});

afterAll(() => {
  rmSync(work, { recursive: true, force: true });
});

function userRepo(name: string): string {
  const dir = path.join(work, name);
  for (const [rel, bytes] of Object.entries(USER_FILES)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), bytes);
  }
  chmodSync(path.join(dir, EXECUTABLE), 0o755);
  return dir;
}

function expectUserFilesIntact(dir: string): void {
  for (const [rel, bytes] of Object.entries(USER_FILES)) {
    expect(readFileSync(path.join(dir, rel)).equals(bytes), `${rel} byte-identical`).toBe(true);
  }
  expect(statSync(path.join(dir, EXECUTABLE)).mode & 0o777).toBe(0o755);
}

describe('svc init into a directory that is not empty', () => {
  it('refuses without --force, naming the directory and some of its files, and writes nothing', async () => {
    const dir = userRepo('refused');
    const run = await svc(['init', '.', '--name', 'Books', '--openapi', specPath], { cwd: dir });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(dir);
    expect(run.stderr).toContain('README.md');
    expect(run.stderr).toContain('Docs/guide.md');
    expect(run.stderr).toContain('--force');
    expect(existsSync(path.join(dir, 'config.yaml'))).toBe(false);
    expectUserFilesIntact(dir);
  });

  it('refuses the manual provider too', async () => {
    const dir = userRepo('refused-manual');
    const run = await svc(['init', dir, '--name', 'M', '--manual', '--base-url', 'https://api.example.com'], {
      cwd: work,
    });
    expect(run.code).toBe(2);
    expect(existsSync(path.join(dir, 'config.yaml'))).toBe(false);
    expectUserFilesIntact(dir);
  });

  it('with --force imports and keeps every file of the user, byte for byte, naming the collisions', async () => {
    const dir = userRepo('forced');
    const run = await svc(['init', '.', '--name', 'Books', '--openapi', specPath, '--force'], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(path.join(dir, 'config.yaml'))).toBe(true);
    expect(existsSync(path.join(dir, 'Tools', 'listBooks.yaml'))).toBe(true);
    expectUserFilesIntact(dir);
    expect(run.stdout).toMatch(/kept your README\.md/i);
  });

  it('after init --force, a re-import still keeps every file of the user', async () => {
    const dir = userRepo('forced-reimport');
    const init = await svc(['init', '.', '--name', 'Books', '--openapi', specPath, '--force'], { cwd: dir });
    expect(init.code).toBe(0);
    const again = await svc(['import', '.'], { cwd: dir });
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expectUserFilesIntact(dir);
  });

  it('with --force and --json lists the kept files', async () => {
    const dir = userRepo('forced-json');
    const run = await svc(['init', '.', '--name', 'Books', '--openapi', specPath, '--force', '--json'], {
      cwd: dir,
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout).kept).toEqual(['README.md']);
    expectUserFilesIntact(dir);
  });

  it('with --force creates a manual app without touching the user files', async () => {
    const dir = userRepo('forced-manual');
    const run = await svc(
      ['init', '.', '--name', 'M', '--manual', '--base-url', 'https://api.example.com', '--force'],
      { cwd: dir },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(existsSync(path.join(dir, 'config.yaml'))).toBe(true);
    expectUserFilesIntact(dir);
    expect(run.stdout).toMatch(/kept your README\.md/i);
  });

  it('counts a directory holding only .git as empty', async () => {
    const dir = path.join(work, 'fresh-repo');
    mkdirSync(path.join(dir, '.git'), { recursive: true });
    writeFileSync(path.join(dir, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    const run = await svc(['init', '.', '--name', 'Books', '--openapi', specPath], { cwd: dir });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8')).toBe('ref: refs/heads/main\n');
  });
});
