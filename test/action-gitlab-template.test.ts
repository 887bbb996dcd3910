/**
 * The GitLab CI template in docs/gitlab-ci.md: it parses, its jobs run on the right events, its shell is
 * valid, and its merge-request note poster (run for real with node) creates one note, then finds it again by
 * the marker through paginated listings and edits it in place, never touching other notes, against a fake
 * GitLab notes API on loopback.
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';

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
    expect(diff).toContain('svc diff "$dir" --format markdown');
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
});
