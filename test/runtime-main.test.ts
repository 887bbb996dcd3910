/**
 * The container entry (runtime/main.ts) as the Docker image runs it: bundled with esbuild like
 * the Dockerfile does, started with environment variables only, stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { bundleEntry } from './helpers/bundle-entry.js';

let dir: string;
let entry: string;
let upstream: EchoUpstream;
let folder: TempFolder;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-main-'));
  entry = join(dir, 'runtime.mjs');
  await bundleEntry('runtime/main.ts', entry);
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
}, 60_000);
afterAll(async () => {
  await upstream?.close();
  await folder?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function start(env: Record<string, string>): {
  child: ChildProcess;
  lines: string[];
  exit: Promise<number | null>;
} {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exit };
}

function event(lines: string[], name: string): Record<string, unknown> | undefined {
  for (const line of lines) {
    const record = JSON.parse(line) as Record<string, unknown>;
    if (record.event === name) return record;
  }
  return undefined;
}

describe('runtime/main.ts (container entry)', () => {
  it('boots from SVC_FOLDER_PATH, serves, and exits 0 on SIGTERM', { timeout: 30_000 }, async () => {
    const secret = 'main-secret-42abc';
    const run = start({
      SVC_FOLDER_PATH: folder.dir,
      SVC_RUNTIME_MODE: 'standalone',
      SVC_UPSTREAM_SECRET: secret,
      MCP_RUNTIME_PORT: '0',
    });
    await expect.poll(() => event(run.lines, 'runtime_started'), { timeout: 20_000 }).toBeDefined();
    const started = event(run.lines, 'runtime_started')!;
    const health = await fetch(String(started.health));
    expect(health.status).toBe(200);
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    expect(event(run.lines, 'runtime_stopped')).toBeDefined();
    for (const line of run.lines) expect(line).not.toContain(secret);
  });

  it('exits 78 with a JSON error naming the missing variable', { timeout: 30_000 }, async () => {
    const run = start({ SVC_FOLDER_PATH: folder.dir, MCP_RUNTIME_PORT: '0' });
    expect(await run.exit).toBe(78);
    const failed = event(run.lines, 'boot_failed')!;
    expect(failed.code).toBe('CONFIG_MISSING_ENV');
    expect(failed.place).toMatchObject({ field: 'SVC_UPSTREAM_SECRET' });
  });

  it('exits 78 on an invalid variable', { timeout: 30_000 }, async () => {
    const run = start({ SVC_FOLDER_PATH: folder.dir, MCP_RUNTIME_PORT: 'eighty' });
    expect(await run.exit).toBe(78);
    expect(event(run.lines, 'boot_failed')!.place).toMatchObject({ field: 'MCP_RUNTIME_PORT' });
  });
});
