/**
 * The control service's data directory (the embedded database and the sealing key `secret.key`)
 * stays out of the user's repository: by default it is the user's state directory, not the
 * current directory, and one put inside a work tree on purpose ignores itself.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultControlDataDir } from '../control/data-dir.js';
import { svc } from './helpers/run-cli.js';

let root: string;
let repo: string;
let home: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'svc-control-data-'));
  repo = path.join(root, 'repo');
  home = path.join(root, 'home');
  execFileSync('git', ['init', '-q', repo]);
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function untracked(): string {
  return execFileSync('git', ['status', '--porcelain', '--untracked-files=all'], {
    cwd: repo,
    encoding: 'utf8',
  });
}

describe('the control data directory', () => {
  it('defaults to the state directory, never the current directory', () => {
    expect(defaultControlDataDir({ HOME: '/home/ada' })).toBe('/home/ada/.local/state/svc/control');
    expect(defaultControlDataDir({ HOME: '/home/ada', XDG_STATE_HOME: '/state' })).toBe('/state/svc/control');
    expect(defaultControlDataDir({ HOME: '/home/ada', SVC_DATA_DIR: '/data' })).toBe('/data');
  });

  it('`svc control token` run in a repository writes nothing there', async () => {
    const made = await svc(['control', 'token', 'workspace', '--name', 'admin'], {
      cwd: repo,
      env: { HOME: home },
    });
    expect(made.code, made.stderr).toBe(0);
    expect(readdirSync(repo)).toEqual(['.git']);
    expect(existsSync(path.join(home, '.local/state/svc/control'))).toBe(true);
    expect(untracked()).toBe('');
  });

  it('a data directory inside the work tree (--data) keeps itself out of git', async () => {
    const made = await svc(['control', 'token', 'workspace', '--name', 'admin', '--data', 'control-data'], {
      cwd: repo,
      env: { HOME: home },
    });
    expect(made.code, made.stderr).toBe(0);
    expect(readdirSync(path.join(repo, 'control-data')).length).toBeGreaterThan(1);
    expect(untracked()).toBe('');
  });
});
