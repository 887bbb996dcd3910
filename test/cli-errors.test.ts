/**
 * The built `svc` as a user meets its errors and help: a suggestion for a typo, the right exit
 * code, each error printed once and ending in something readable, help about svc's own commands.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RUNTIME_ENV_VARIABLES } from '../runtime/env.js';
import { ensureBuilt, REPO_ROOT, runSvc } from './helpers/built-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

let work: string;
let site: StaticServer;
const petstore = path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml');

function count(text: string, part: string): number {
  return text.split(part).length - 1;
}

beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(path.join(tmpdir(), 'svc-cli-errors-'));
  site = await serveRoutes({
    '/docs': (_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!DOCTYPE html>\n<html><head><title>API docs</title></head><body>Docs</body></html>'),
  });
}, 120_000);

afterAll(async () => {
  await site.close();
  rmSync(work, { recursive: true, force: true });
});

describe('svc suggests what was meant', () => {
  it('for a mistyped command, with exit 2', async () => {
    const run = await runSvc(['int', 'x'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      'error: unknown command "int". Did you mean `svc init`? Run `svc help` for the list of commands.\n',
    );
  });

  it('for a mistyped second word of a two-word command', async () => {
    const run = await runSvc(['tool', 'ad', 'x'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command "tool ad"\. Did you mean `svc tool add`\?/);
  });

  it('for a mistyped global flag', async () => {
    const run = await runSvc(['--verison'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command "--verison"\. Did you mean `svc --version`\?/);
  });

  it('for a mistyped flag, naming the command, once', async () => {
    const run = await runSvc(['init', 'x', '--nmae', 'X', '--openapi', petstore], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /svc init: unknown option --nmae\. Did you mean `--name`\? Run `svc help init`/,
    );
    expect(count(run.stderr, 'unknown option')).toBe(1);
    expect(run.stdout).toBe('');
  });
});

describe('svc help', () => {
  it('exits 2 for a command that does not exist', async () => {
    const run = await runSvc(['help', 'frobnicate'], { cwd: work });
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/unknown command "frobnicate"/);
  });

  it('lists the commands under a first word: `svc help tool` shows tool add and tool list', async () => {
    const run = await runSvc(['help', 'tool'], { cwd: work });
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^ {2}tool add {2,}author a tool by hand/m);
    expect(run.stdout).toMatch(/^ {2}tool list {2,}list the tools of a server folder/m);
    expect(await runSvc(['tool', '--help'], { cwd: work })).toMatchObject({ code: 0, stdout: run.stdout });
    const bare = await runSvc(['tool'], { cwd: work });
    expect(bare).toMatchObject({ code: 2, stdout: run.stdout });
  });

  it('speaks of svc only, in one capitalisation style', async () => {
    const help = await runSvc(['help'], { cwd: work });
    const rows = help.stdout.split('\n').filter((l) => /^ {2}\S/.test(l));
    expect(rows.length).toBeGreaterThan(8);
    for (const row of rows) expect(row).toMatch(/^ {2}[a-z][a-z ]*? {2,}[a-z]/);
    for (const name of ['history', 'export', 'demo', 'validate']) {
      const usage = (await runSvc(['help', name], { cwd: work })).stdout;
      expect(usage).not.toMatch(/spec \d|Servers →|npm start|fixtures\/|schemas\//);
    }
  });

  it('serve --help lists every variable the runtime reads, but the deprecated ones', async () => {
    const run = await runSvc(['serve', '--help'], { cwd: work });
    expect(run.code).toBe(0);
    const deprecated = ['SVC_BUNDLE_PATH', 'FLOWCP_BUNDLE_PATH'];
    for (const variable of RUNTIME_ENV_VARIABLES) {
      const listed = new RegExp(`^ {2}${variable} `, 'm');
      if (deprecated.includes(variable)) expect(run.stdout).not.toMatch(listed);
      else expect(run.stdout).toMatch(listed);
    }
  });
});

describe('svc errors', () => {
  it('reports an HTML page given as the document as HTML, with its URL, once', async () => {
    const run = await runSvc(['init', 'html', '--name', 'X', '--openapi', `${site.url}/docs`], { cwd: work });
    expect(run.code).toBe(3);
    expect(count(run.stdout + run.stderr, 'got an HTML page, not an OpenAPI document')).toBe(1);
    expect(run.stderr).toContain(`from ${site.url}/docs`);
  });

  it('ends a YAML error with its excerpt and prints it once', async () => {
    writeFileSync(path.join(work, 'bad.yaml'), 'openapi: 3.0.0\ninfo:\n  title: x\n bad: [\n');
    const run = await runSvc(['init', 'yaml', '--name', 'X', '--openapi', 'bad.yaml'], { cwd: work });
    expect(run.code).toBe(3);
    expect(run.stderr).not.toMatch(/column \d+:\s*$/);
    expect(run.stderr).toMatch(/at line 4, column 1:\n\n {2}title: x\n bad: \[\n\^\n$/);
    expect(count(run.stdout + run.stderr, 'neither JSON nor valid YAML')).toBe(1);
  });

  it('refuses to init over an existing folder as bad input (exit 3), not a write error', async () => {
    const first = await runSvc(['init', 'pets', '--name', 'Pets', '--openapi', petstore], { cwd: work });
    expect(first.code).toBe(0);
    const again = await runSvc(['init', 'pets', '--name', 'Pets', '--openapi', petstore], { cwd: work });
    expect(again.code).toBe(3);
    expect(again.stderr).toMatch(/FOLDER_EXISTS.*svc import/s);
  });

  it('exits 4 naming the port when the port is in use', async () => {
    await runSvc(['init', 'busy', '--name', 'Busy', '--openapi', petstore], { cwd: work });
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const port = (blocker.address() as { port: number }).port;
    try {
      const run = await runSvc(['serve', 'busy', '--port', String(port)], { cwd: work });
      expect(run.code).toBe(4);
      expect(run.stderr).toMatch(
        new RegExp(`PORT_IN_USE: .*port ${port} on 127\\.0\\.0\\.1 is already in use`),
      );
      expect(count(run.stderr, 'already in use')).toBe(1);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
