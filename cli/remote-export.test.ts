/**
 * `svc export --remote --out` writes only what an export may hold: a hostile or broken control
 * service answering `.git/config` (a command run through core.fsmonitor on the next `git status`),
 * a climbing path or a hidden directory gets a refusal naming the path, and nothing is written.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runCli } from './main.js';

let server: Server;
let url: string;
let files: Record<string, string> = {};
const work = mkdtempSync(join(tmpdir(), 'svc-remote-export-'));

beforeAll(async () => {
  server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ server: { server: { id: 'pets' } }, files }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  rmSync(work, { recursive: true, force: true });
});

async function exportTo(out: string) {
  let stderr = '';
  const code = await runCli(['export', '--remote', 'pets', '--out', out], {
    cwd: work,
    env: { SVC_CONTROL_URL: url, SVC_TOKEN: 'svc_pat_test' },
    stdout: () => undefined,
    stderr: (t) => {
      stderr += t;
    },
  });
  return { code, stderr };
}

it.each([
  '.git/config',
  'Docs/.git/config',
  'Tools/../../escape.yaml',
  '.svc/history/1.json',
  'Tools/nested/x.yaml',
  'notes.sh',
])('refuses an export holding %s and writes nothing', async (path) => {
  files = { 'config.yaml': 'schemaVersion: 1\n', [path]: '[core]\n\tfsmonitor = touch /tmp/pwned\n' };
  const out = join(work, `out-${Math.random().toString(36).slice(2)}`);
  const run = await exportTo(out);
  expect(run.code).not.toBe(0);
  expect(run.stderr).toContain('CONTROL_REFUSED');
  expect(run.stderr).toContain(path);
  expect(existsSync(out)).toBe(false);
});

it('writes an export made of folder files only', async () => {
  files = {
    'config.yaml': 'schemaVersion: 1\n',
    'Tools/list-pets.yaml': 'name: list-pets\n',
    'Tools/openapi.json': '{}',
    'Docs/guides/start.md': '# Start\n',
    '.env.example': 'X=\n',
  };
  const out = join(work, 'good');
  const run = await exportTo(out);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  expect(existsSync(join(out, 'Docs', 'guides', 'start.md'))).toBe(true);
});
