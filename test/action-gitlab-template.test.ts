/**
 * The GitLab CI template in docs/gitlab-ci.md: it parses, its jobs run on the right events, its shell is
 * valid, and its merge-request note poster (run for real with node) creates one note, then finds it again by
 * the marker through paginated listings and edits it in place, never touching other notes, against a fake
 * GitLab notes API on loopback.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { createTestRepo } from '../generator/sources/testing/git-test-repo.js';
import { configYaml } from '../generator/testing/server-folder.js';
import { importFolder } from '../generator/import/index.js';
import type { SvcConfig } from '../schemas/types.js';

const doc = readFileSync(new URL('../docs/gitlab-ci.md', import.meta.url), 'utf8');
const yamlText = /```yaml\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
const ci = parseYaml(yamlText) as Record<
  string,
  { rules?: { if: string }[]; script?: string[]; extends?: string }
>;
const tmp = mkdtempSync(join(tmpdir(), 'svc-gitlab-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe('docs/gitlab-ci.md template', () => {
  it('has a merge-request diff job and a default-branch import job that skips its own commit', () => {
    expect(ci['svc:diff']?.rules?.[0]?.if).toContain('merge_request_event');
    const importRule = ci['svc:import']?.rules?.[0]?.if ?? '';
    expect(importRule).toContain('$CI_DEFAULT_BRANCH');
    expect(importRule).toContain('Svc-Import: true');
    const diff = ci['svc:diff']?.script?.join('\n') ?? '';
    const imp = ci['svc:import']?.script?.join('\n') ?? '';
    expect(diff).toContain('svc diff "$dir" --base "$base" --format markdown');
    expect(imp).toContain('svc import "$dir"');
    expect(imp).toContain('git push -o ci.skip');
    // The token is never put in a URL.
    expect(imp).not.toMatch(/https?:\/\/[^ ]*\$\{?SVC_GITLAB_TOKEN/);
    const scripts: [string, string][] = [
      ['diff', diff],
      ['import', imp],
    ];
    for (const [name, script] of scripts) {
      const file = join(tmp, `${name}.sh`);
      writeFileSync(file, script);
      expect(() => execFileSync('bash', ['-n', file])).not.toThrow();
    }
  });

  it('posts one note, then updates it in place found past the first page', async () => {
    const script = ci['svc:diff']?.script?.join('\n') ?? '';
    const program = /node --input-type=module -e '\n([\s\S]*?)\n'\n/.exec(script)?.[1];
    expect(program).toBeDefined();
    const notes: { id: number; body: string; system: boolean }[] = [];
    for (let i = 0; i < 120; i++) notes.push({ id: i + 1, body: `note ${i}`, system: i % 10 === 0 });
    const seen: string[] = [];
    const server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      seen.push(`${req.method} ${url.pathname}${url.search}`);
      if (req.headers['private-token'] !== 'glpat-test') {
        res.writeHead(401).end('{}');
        return;
      }
      let text = '';
      req.on('data', (c) => {
        text += c;
      });
      req.on('end', () => {
        const base = '/api/v4/projects/77/merge_requests/5/notes';
        if (req.method === 'GET' && url.pathname === base) {
          const per = Number(url.searchParams.get('per_page'));
          const page = Number(url.searchParams.get('page'));
          const last = Math.ceil(notes.length / per);
          res.writeHead(200, {
            'content-type': 'application/json',
            'x-next-page': page < last ? String(page + 1) : '',
          });
          res.end(JSON.stringify(notes.slice((page - 1) * per, page * per)));
        } else if (req.method === 'POST' && url.pathname === base) {
          const note = { id: 1000 + notes.length, body: JSON.parse(text).body, system: false };
          notes.push(note);
          res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify(note));
        } else if (req.method === 'PUT' && url.pathname.startsWith(`${base}/`)) {
          const note = notes.find((n) => n.id === Number(url.pathname.split('/').pop()));
          if (!note) return void res.writeHead(404).end('{}');
          note.body = JSON.parse(text).body;
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(note));
        } else res.writeHead(404).end('{}');
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const env = {
      PATH: process.env['PATH'] ?? '',
      CI_API_V4_URL: `http://127.0.0.1:${port}/api/v4`,
      CI_PROJECT_ID: '77',
      CI_MERGE_REQUEST_IID: '5',
      SVC_GITLAB_TOKEN: 'glpat-test',
    };
    const post = (body: string) => {
      writeFileSync(join(tmp, 'report.md'), body);
      return new Promise<string>((resolve, reject) =>
        execFile(process.execPath, ['--input-type=module', '-e', program!], { cwd: tmp, env }, (e, out) =>
          e ? reject(e) : resolve(out),
        ),
      );
    };
    try {
      expect(await post('<!-- svc-report -->\nfirst')).toContain('created');
      expect(await post('<!-- svc-report -->\nsecond')).toMatch(/updated note \d+/);
      const ours = notes.filter((n) => n.body.startsWith('<!-- svc-report -->'));
      expect(ours.map((n) => n.body)).toEqual(['<!-- svc-report -->\nsecond']);
      expect(notes.filter((n) => n.body.startsWith('note '))).toHaveLength(120);
      expect(seen.some((s) => s.includes('page=2'))).toBe(true);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });

  it('runs the merge-request job against a real repository: a breaking hand edit to an enabled tool fails it', async () => {
    // The job's script, as GitLab runs it, with `svc` the CLI built from this checkout (dist/).
    const script = ci['svc:diff']?.script?.join('\n') ?? '';
    const repo = createTestRepo();
    const bin = join(repo.root, 'bin');
    mkdirSync(bin);
    const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    writeFileSync(join(bin, 'svc'), `#!/bin/sh\nexec "${process.execPath}" "${cli}" "$@"\n`, { mode: 0o755 });
    const notes: string[] = [];
    const server = createServer((req, res) => {
      let text = '';
      req.on('data', (c) => {
        text += c;
      });
      req.on('end', () => {
        if (req.method === 'GET') res.writeHead(200, { 'content-type': 'application/json' }).end('[]');
        else {
          notes.push(JSON.parse(text).body);
          res.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}');
        }
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      repo.write({
        'specs/petstore.yaml': readFileSync(
          new URL('../fixtures/action/petstore-v1.yaml', import.meta.url),
          'utf8',
        ),
      });
      const dir = join(repo.dir, 'mcp', 'pets');
      const config = parseYaml(
        configYaml('pets', { kind: 'openapi', location: '../../specs/petstore.yaml' }),
      ) as SvcConfig;
      const first = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
      expect(first.status).toBe('complete');
      const file = Object.keys(first.files).find(
        (p) => p.startsWith('Tools/') && /operationId: listPets/.test(first.files[p] ?? ''),
      )!;
      const enabled = first.files[file]!.replace('enabled: false', 'enabled: true');
      writeFileSync(join(dir, file), enabled);
      const base = repo.commit('pets server, list enabled');
      repo.git('push', '-q', 'origin', 'main');
      repo.git('checkout', '-q', '-b', 'mr');
      // The hand edit: `limit` becomes required for callers of the enabled tool.
      const tool = parseYaml(enabled) as { inputSchema: { required?: string[] } };
      tool.inputSchema.required = [...(tool.inputSchema.required ?? []), 'limit'];
      writeFileSync(join(dir, file), stringifyYaml(tool));
      repo.commit('require limit');
      const env = {
        PATH: `${bin}:${process.env['PATH'] ?? ''}`,
        HOME: repo.root,
        CI_MERGE_REQUEST_DIFF_BASE_SHA: base,
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_API_V4_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v4`,
        CI_PROJECT_ID: '77',
        CI_MERGE_REQUEST_IID: '5',
        SVC_GITLAB_TOKEN: 'glpat-test',
        SVC_FOLDERS: 'mcp/*',
        SVC_FAIL_ON: 'breaking',
      };
      const run = await new Promise<{ code: number; out: string }>((resolve) =>
        execFile('bash', ['-c', script], { cwd: repo.dir, env }, (e, out, err) =>
          resolve({ code: e ? Number(e.code ?? 1) : 0, out: out + err }),
        ),
      );
      expect(run.code, run.out).toBe(1);
      expect(notes).toHaveLength(1);
      expect(notes[0]).toMatch(
        /- 🔴 tool `\S+` \(`GET \/pets`\) input changed: hand edit to inputSchema; newly required: limit/,
      );
      expect(notes[0]).toContain('1 breaking change hitting enabled tools');
    } finally {
      await new Promise((r) => server.close(r));
      repo.cleanup();
    }
  });
});
