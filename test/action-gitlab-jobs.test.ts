/**
 * The GitLab CI template's two jobs run for real: their scripts (from docs/gitlab-ci.md) run in bash with the
 * svc CLI (bundled from this checkout with esbuild, on PATH as `svc`), in a real git repository with a bare
 * origin, and a fake GitLab notes API on loopback. The merge-request job posts the diff note and fails on a
 * breaking change; the default-branch job commits the re-import once, then finds nothing to commit.
 */
import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { createTestRepo, type TestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { importFolder } from '../generator/import/index.js';
import type { SvcConfig } from '../schemas/types.js';

const root = new URL('..', import.meta.url).pathname;
const doc = readFileSync(join(root, 'docs/gitlab-ci.md'), 'utf8');
const ci = parseYaml(/```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '') as Record<string, { script: string[] }>;
const fixture = (name: string) => readFileSync(join(root, 'fixtures/action', name), 'utf8');

let repo: TestRepo;
let bin: string;
let base: string;
let server: Server;
let api: string;
const notes: { id: number; body: string; system: boolean }[] = [];

beforeAll(async () => {
  repo = createTestRepo();
  bin = join(repo.root, 'bin');
  mkdirSync(bin);
  // The same plugin as the action's bundle: project files' createRequire calls are inlined.
  const { inlineLocalRequires } = (await import(join(root, 'action', 'build.mjs'))) as {
    inlineLocalRequires: Plugin;
  };
  await build({
    plugins: [inlineLocalRequires],
    absWorkingDir: root,
    entryPoints: ['cli/main.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: join(bin, 'svc.mjs'),
    logLevel: 'error',
    banner: {
      js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);",
    },
  });
  writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${join(bin, 'svc.mjs')}" "$@"\n`);
  chmodSync(join(bin, 'svc'), 0o755);
  execFileSync('git', ['config', 'receive.advertisePushOptions', 'true'], { cwd: repo.origin });

  repo.write({ 'specs/petstore.yaml': fixture('petstore-v1.yaml') });
  const config = parseYaml(
    configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' }),
  ) as SvcConfig;
  const dir = join(repo.dir, 'mcp', 'pets');
  const first = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
  for (const [path, text] of Object.entries(first.files)) {
    if (path.startsWith('Tools/') && text.includes('path: /pets/{petId}') && text.includes('method: GET')) {
      writeFileSync(join(dir, path), text.replace('enabled: false', 'enabled: true'));
    }
  }
  base = repo.commit('pets server');
  repo.git('push', '-q', 'origin', 'main');

  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      if (req.headers['private-token'] !== 'glpat-jobs') return void res.writeHead(401).end('{}');
      const path = '/api/v4/projects/9/merge_requests/4/notes';
      if (req.method === 'GET' && url.pathname === path) {
        res
          .writeHead(200, { 'content-type': 'application/json', 'x-next-page': '' })
          .end(JSON.stringify(notes));
      } else if (req.method === 'POST' && url.pathname === path) {
        const note = { id: notes.length + 1, body: JSON.parse(text).body as string, system: false };
        notes.push(note);
        res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(note));
      } else res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  api = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`;
});

afterAll(async () => {
  await new Promise((r) => server.close(r));
  repo.cleanup();
});

function runJob(job: string, env: Record<string, string>): Promise<{ code: number; out: string }> {
  const script = ci[job]?.script.join('\n') ?? '';
  return new Promise((resolve) => {
    const child = execFile(
      'bash',
      ['-eo', 'pipefail', '-c', script],
      {
        cwd: repo.dir,
        env: {
          PATH: `${bin}:${process.env['PATH'] ?? ''}`,
          HOME: repo.root,
          TMPDIR: repo.root,
          GIT_AUTHOR_NAME: 'svc bot',
          GIT_AUTHOR_EMAIL: 'bot@example.test',
          GIT_COMMITTER_NAME: 'svc bot',
          GIT_COMMITTER_EMAIL: 'bot@example.test',
          SVC_FOLDERS: 'mcp/*',
          SVC_FAIL_ON: 'breaking',
          SVC_GITLAB_TOKEN: 'glpat-jobs',
          CI_SERVER_URL: 'http://127.0.0.1:9',
          ...env,
        },
      },
      (_e, stdout, stderr) => resolve({ code: child.exitCode ?? -1, out: stdout + stderr }),
    );
  });
}

const originHead = () =>
  execFileSync('git', ['log', '-1', '--format=%B', 'main'], { cwd: repo.origin, encoding: 'utf8' });

describe('GitLab CI template jobs', () => {
  it('svc:diff posts the merge-request note with the breaking change and fails the job', async () => {
    repo.git('checkout', '-q', '-B', 'mr', base);
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    repo.commit('petstore v2');
    const { code, out } = await runJob('svc:diff', {
      CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
      CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
      CI_API_V4_URL: api,
      CI_PROJECT_ID: '9',
      CI_MERGE_REQUEST_IID: '4',
    });
    expect(out).toContain('created the svc note');
    expect(code).toBe(1);
    expect(notes).toHaveLength(1);
    expect(notes[0]!.body.startsWith('<!-- svc-report -->')).toBe(true);
    expect(notes[0]!.body).toContain('#### `mcp/pets`');
    expect(notes[0]!.body).toContain('/pets/{petId}');
    expect(out).not.toContain('glpat-jobs');
  });

  it('svc:import commits the re-import once with the trailer, then has nothing to commit', async () => {
    repo.git('checkout', '-q', 'main');
    repo.write({ 'specs/petstore.yaml': fixture('petstore-v2.yaml') });
    const sha = repo.commit('petstore v2 merged');
    repo.git('push', '-q', 'origin', 'main');
    const env = { CI_COMMIT_BRANCH: 'main', CI_COMMIT_SHA: sha };
    const first = await runJob('svc:import', env);
    expect(first.code).toBe(0);
    const message = originHead();
    expect(message).toContain('chore(mcp): re-import API descriptions');
    expect(message).toMatch(/- mcp\/pets: .*1 added/);
    expect(message.split('\n')).toContain('Svc-Import: true');
    expect(first.out).not.toContain('glpat-jobs');
    const after = repo.git('rev-parse', 'HEAD');
    const second = await runJob('svc:import', { CI_COMMIT_BRANCH: 'main', CI_COMMIT_SHA: after });
    expect(second.code).toBe(0);
    expect(second.out).toContain('Nothing changed; no commit.');
    expect(repo.git('status', '--porcelain')).toBe('');
  });
});
