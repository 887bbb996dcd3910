/**
 * The control service as a process, the way the Docker image starts it (control/main.ts bundled
 * with esbuild, packages external): it prints one line with its URL, answers /healthz, accepts a
 * workspace token made by `node control.mjs token workspace` on the same data while it runs, and
 * exits 0 on SIGTERM.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { bundleEntry } from './helpers/bundle-entry.js';

let out: string;
let data: string;
let child: ChildProcess | undefined;

beforeAll(async () => {
  // Inside the checkout so the external packages resolve from its node_modules.
  out = mkdtempSync(resolve('.control-main-test-'));
  data = mkdtempSync(join(tmpdir(), 'svc-control-main-'));
  await bundleEntry('control/main.ts', join(out, 'control.mjs'), { packages: 'external' });
}, 60_000);

afterAll(() => {
  child?.kill('SIGKILL');
  rmSync(out, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

it('prints its URL, serves, takes a token made while it runs, and exits 0 on SIGTERM', async () => {
  child = spawn(process.execPath, [join(out, 'control.mjs')], {
    env: { PATH: process.env.PATH ?? '', SVC_CONTROL_PORT: '0', SVC_DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exit = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  const deadline = Date.now() + 20_000;
  while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  expect(stdout).toMatch(/^svc control listening on http:\/\/127\.0\.0\.1:\d+\n$/);
  const url = stdout.trim().split(' ').at(-1)!;
  expect((await fetch(`${url}/healthz`)).status).toBe(200);

  // The image's way to make a token: the same entry with arguments, on the same data, while it runs.
  const token = execFileSync(
    process.execPath,
    [join(out, 'control.mjs'), 'token', 'workspace', '--name', 'ci'],
    {
      env: { PATH: process.env.PATH ?? '', SVC_DATA_DIR: data },
      encoding: 'utf8',
    },
  ).trim();
  expect(token).toMatch(/^svc_pat_/);
  const servers = await fetch(`${url}/v1/servers`, { headers: { authorization: `Bearer ${token}` } });
  expect(servers.status).toBe(200);
  expect(await servers.json()).toEqual([]);

  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(stdout.trim().split('\n')).toHaveLength(1);
}, 60_000);
