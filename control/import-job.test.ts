/**
 * An import job reads and writes only its folder (issue 17 item 8): beside unrelated folders, one
 * of whose blobs is not even in the repository (as in a partial clone), it imports, and its commit
 * changes files of the folder only. A damaged pack file is reported in svc's words, naming the
 * repository and the step.
 */
import { execFileSync } from 'node:child_process';
import fs, { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import git from 'isomorphic-git';
import { afterEach, expect, it } from 'vitest';
import { stringify } from 'yaml';
import type { SvcError } from '../core/svc-error.js';
import { openRepository } from './git/git-repository.js';
import { sourcePaths } from './git/job-tree.js';
import { type JobOutcome, runImportJob } from './import-job.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from './testing/server-repo.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const fn of cleanups.splice(0)) fn();
});

async function setUp(): Promise<{ repo: ServerRepo; work: string }> {
  const repo = await createServerRepo();
  const work = mkdtempSync(join(tmpdir(), 'svc-import-job-'));
  cleanups.push(
    () => repo.cleanup(),
    () => rmSync(work, { recursive: true, force: true }),
  );
  return { repo, work };
}

async function job(repo: ServerRepo, work: string): Promise<JobOutcome> {
  return runImportJob({
    repo: await openRepository(repo.bare, { cacheDir: join(work, 'cache') }),
    branch: 'main',
    path: FOLDER,
    trigger: 'manual',
    workRoot: work,
    now: () => new Date('2026-02-01T00:00:00Z'),
    onProgress: () => undefined,
    stillOwned: () => true,
  });
}

const bareGit = (repo: ServerRepo, ...args: string[]) =>
  execFileSync('git', ['--git-dir', repo.bare, ...args], { encoding: 'utf8' }).trim();

it('reads and commits only the folder, beside unrelated folders it never reads', async () => {
  const { repo, work } = await setUp();
  const unrelated: Record<string, string> = {};
  for (let i = 0; i < 300; i++) unrelated[`other/server-${i % 3}/Tools/t${i}.yaml`] = `name: t${i}\n`;
  repo.push(
    { ...unrelated, 'specs/petstore.yaml': petstore('v2') },
    'the spec changes, beside other servers',
  );
  // One more unrelated file whose blob the repository does not have (a blobless partial clone
  // looks like this): a job that read it would fail.
  const gitdir = repo.bare;
  const head = bareGit(repo, 'rev-parse', 'main');
  const { commit } = await git.readCommit({ fs, gitdir, oid: head });
  const { tree } = await git.readTree({ fs, gitdir, oid: commit.tree });
  const missing = 'deadbeefdeadbeefdeadbeefdeadbeefdeadbeef';
  const root = await git.writeTree({
    fs,
    gitdir,
    tree: [...tree, { mode: '100644', path: 'vendor.bin', oid: missing, type: 'blob' }],
  });
  const who = { name: 'T', email: 't@example.test', timestamp: 1_767_225_600, timezoneOffset: 0 };
  const base = await git.writeCommit({
    fs,
    gitdir,
    commit: { message: 'vendor a large file\n', tree: root, parent: [head], author: who, committer: who },
  });
  await git.writeRef({ fs, gitdir, ref: 'refs/heads/main', value: base, force: true });

  const outcome = await job(repo, work);
  expect(outcome).toMatchObject({ status: 'Complete' });
  const made = (outcome as { commit?: string }).commit;
  expect(made).toMatch(/^[0-9a-f]{40}$/);
  expect(bareGit(repo, 'rev-parse', 'main')).toBe(made);
  const changed = bareGit(repo, 'diff-tree', '-r', '--name-only', '--no-commit-id', base, made!).split('\n');
  expect(changed.length).toBeGreaterThan(0);
  expect(changed.filter((p) => !p.startsWith(`${FOLDER}/`))).toEqual([]);
  // Everything else is the very same tree objects as before.
  expect(bareGit(repo, 'rev-parse', `${made}:other`)).toBe(bareGit(repo, 'rev-parse', `${base}:other`));
  expect(bareGit(repo, 'rev-parse', `${made}:specs`)).toBe(bareGit(repo, 'rev-parse', `${base}:specs`));
  // The scratch copy is gone.
  expect(readdirSync(work).filter((n) => n.startsWith('job-'))).toEqual([]);
});

it('a job with nothing to change commits nothing', async () => {
  const { repo, work } = await setUp();
  const before = bareGit(repo, 'rev-parse', 'main');
  const outcome = await job(repo, work);
  expect(outcome).toMatchObject({ status: 'Complete' });
  expect((outcome as { commit?: string }).commit).toBeUndefined();
  expect(bareGit(repo, 'rev-parse', 'main')).toBe(before);
});

it('a damaged pack file fails the job in svc words, naming the repository and the step', async () => {
  const { repo, work } = await setUp();
  bareGit(repo, 'repack', '-a', '-d', '-q');
  const packDir = join(repo.bare, 'objects', 'pack');
  const pack = join(packDir, readdirSync(packDir).find((n) => n.endsWith('.pack'))!);
  const bytes = readFileSync(pack);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  fs.chmodSync(pack, 0o644);
  writeFileSync(pack, bytes);

  const outcome = await job(repo, work);
  expect(outcome.status).toBe('Failed');
  const { error, failedStep } = outcome as Extract<JobOutcome, { status: 'Failed' }>;
  expect(failedStep).toBe('import');
  expect(error).toMatch(/^GIT_FAILED: /);
  expect(error).toContain(repo.bare);
  expect(error).toContain('(step import)');
  expect(error).toContain("the repository's object store is damaged");
  expect(error).not.toMatch(/internal error|isomorphic-git/i);
});

it('reads a content directory beside the folder, as a checkout would have it', async () => {
  const { repo, work } = await setUp();
  const config = readFileSync(join(repo.repo.dir, FOLDER, 'config.yaml'), 'utf8');
  const skill = readFileSync(join('fixtures', 'content', 'Skills', 'refund-policy.md'), 'utf8');
  repo.push(
    {
      [`${FOLDER}/config.yaml`]: config.replace(
        'location: ../../specs/petstore.yaml',
        'location: ../../specs/petstore.yaml\n  contentDir: ../../content',
      ),
      'content/Skills/refund-policy.md': skill,
    },
    'add a content directory',
  );
  const outcome = await job(repo, work);
  expect(outcome).toMatchObject({ status: 'Complete' });
  const made = (outcome as { commit?: string }).commit!;
  expect(bareGit(repo, 'show', `${made}:${FOLDER}/Skills/refund-policy.md`)).toContain('refund');
});

it('names the sources a folder reads beside it, inside the repository only', () => {
  const config = (source: Record<string, unknown>) => stringify({ source });
  expect(sourcePaths('mcp/pets', config({ kind: 'openapi', location: '../../specs/api.yaml' }))).toEqual([
    'specs/api.yaml',
  ]);
  expect(
    sourcePaths(
      'mcp/pets',
      config({
        kind: 'openapi',
        location: '../../specs/v1/api.yaml',
        allowExternalRefs: true,
        contentDir: 'docs',
      }),
    ),
  ).toEqual(['specs/v1', 'mcp/pets/docs']);
  expect(sourcePaths('', config({ kind: 'openapi', location: 'api.yaml', allowExternalRefs: true }))).toEqual(
    [''],
  );
  for (const location of ['https://api.example.test/openapi.json', '/etc/api.yaml', '../../../outside.yaml'])
    expect(sourcePaths('mcp/pets', config({ kind: 'openapi', location }))).toEqual([]);
  expect(sourcePaths('mcp/pets', config({ kind: 'git', repository: 'o/r', contentDir: 'docs' }))).toEqual([]);
  expect(sourcePaths('mcp/pets', 'source: [unclosed')).toEqual([]);
});

it('a damaged pack file is not reported as a missing folder when the folder is read for a snapshot', async () => {
  const { repo, work } = await setUp();
  const git = await openRepository(repo.bare, { cacheDir: join(work, 'cache') });
  const head = await git.head('main');
  await expect(git.readFolder(head, 'no/such/folder')).rejects.toMatchObject({ code: 'FOLDER_NOT_FOUND' });
  bareGit(repo, 'repack', '-a', '-d', '-q');
  const packDir = join(repo.bare, 'objects', 'pack');
  const pack = join(packDir, readdirSync(packDir).find((n) => n.endsWith('.pack'))!);
  const bytes = readFileSync(pack);
  bytes[bytes.length - 1] = bytes[bytes.length - 1]! ^ 0xff;
  fs.chmodSync(pack, 0o644);
  writeFileSync(pack, bytes);
  const error = await git.readFolder(head, FOLDER).then(
    () => undefined,
    (e: unknown) => e as SvcError,
  );
  expect(error?.code).toBe('GIT_FAILED');
  expect(error?.message).toContain("the repository's object store is damaged");
});
