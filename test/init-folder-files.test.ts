/**
 * What `svc init` puts on disk beyond the folder's schema-checked files: a folder the runtime
 * image's user can read (the mode `mkdir` would give under the user's umask, not mkdtemp's 0700),
 * and a `.gitignore` that keeps `.env` out of git, written once and the user's from then on.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { svc } from './helpers/run-cli.js';

let work: string;
let PETSTORE: string;

beforeAll(() => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-init-files-'));
  execFileSync('git', ['init', '-q', work]);
  // The document sits in the repository: a re-import reads only paths inside it.
  PETSTORE = path.join(work, 'petstore.yaml');
  copyFileSync(path.resolve('fixtures/specs/petstore-3.0.yaml'), PETSTORE);
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

async function initUnder(umask: number, name: string, extra: string[] = ['--openapi', PETSTORE]) {
  const before = process.umask(umask);
  try {
    return await svc(['init', name, '--name', 'Pets', ...extra], { cwd: work });
  } finally {
    process.umask(before);
  }
}

describe('a folder made by svc init', () => {
  it('has the mode the umask gives (0755 under 022, so the image user `node` reads it)', async () => {
    expect((await initUnder(0o022, 'open')).code).toBe(0);
    expect(statSync(path.join(work, 'open')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(work, 'open/Tools')).mode & 0o777).toBe(0o755);
    expect(statSync(path.join(work, 'open/config.yaml')).mode & 0o777).toBe(0o644);
  });

  it('stays private under a private umask (077)', async () => {
    expect((await initUnder(0o077, 'private')).code).toBe(0);
    expect(statSync(path.join(work, 'private')).mode & 0o777).toBe(0o700);
  });

  it('a manual folder too', async () => {
    const init = await initUnder(0o022, 'manual', ['--manual', '--base-url', 'https://api.example.test']);
    expect(init.code).toBe(0);
    expect(statSync(path.join(work, 'manual')).mode & 0o777).toBe(0o755);
  });

  it('keeps .env out of git with its own .gitignore, and still validates', async () => {
    for (const dir of ['open', 'manual']) {
      writeFileSync(path.join(work, dir, '.env'), 'SVC_UPSTREAM_SECRET=s3cr3t\n');
      const ignored = execFileSync('git', ['status', '--porcelain', '--untracked-files=all', dir], {
        cwd: work,
        encoding: 'utf8',
      });
      expect(ignored).toContain(`${dir}/.gitignore`);
      expect(ignored).toContain(`${dir}/.env.example`);
      expect(ignored).not.toContain(`${dir}/.env\n`);
      const validate = await svc(['validate', dir], { cwd: work });
      expect(validate.code, validate.stdout + validate.stderr).toBe(0);
    }
  });

  it('leaves the .gitignore to the user: a re-import keeps an edited one', async () => {
    const file = path.join(work, 'open/.gitignore');
    writeFileSync(file, `${readFileSync(file, 'utf8')}.svc/specs/\n`);
    const edited = readFileSync(file, 'utf8');
    expect((await svc(['import', 'open'], { cwd: work })).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(edited);
  });
});
