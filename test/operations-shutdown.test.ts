/**
 * Readiness and graceful shutdown for orchestrators (contracts/operations.md): /readyz turns
 * 503 once the config sync has not reached the control service for three intervals, and the
 * container entry (runtime/main.ts, bundled as the image runs it) on SIGTERM under load lets
 * every call in flight finish, in both eras, refuses new connections, and exits 0.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { bundleEntry } from './helpers/bundle-entry.js';
import { connectClient } from './helpers/mcp-client.js';

let dir: string;
let entry: string;
let upstream: EchoUpstream;
let folder: TempFolder;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'));
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

describe('/readyz', () => {
  it('reflects the config sync: ready while polls reach the service, 503 once they stop', async () => {
    // A stand-in control service that always answers "unchanged".
    const control: Server = createServer((_req, res) => {
      res.writeHead(304);
      res.end();
    });
    await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
    const runtime = await startRuntime({
      env: parseRuntimeEnv({
        MCP_RUNTIME_PORT: '0',
        SVC_UPSTREAM_SECRET: 'sk-ready-1234abcd',
        SVC_SYNC_URL: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
        SVC_DEPLOY_TOKEN: 'svc_dpl_ready',
      }),
      folderDir: folder.dir,
      syncIntervalMs: 100,
      logger: { log() {} },
    });
    const readyz = `${new URL(runtime.url).origin}/readyz`;
    try {
      // Not ready until the first poll has settled (contracts/fleet.md), then ready while polls succeed.
      await expect
        .poll(async () => (await fetch(readyz)).status, { timeout: 10_000, interval: 20 })
        .toBe(200);
      const ready = await fetch(readyz);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ status: 'ready', sync: { ok: true } });
      control.closeAllConnections();
      await new Promise<void>((r) => control.close(() => r()));
      await expect
        .poll(async () => (await fetch(readyz)).status, { timeout: 10_000, interval: 50 })
        .toBe(503);
      const stale = (await (await fetch(readyz)).json()) as {
        status: string;
        sync: { consecutiveFailures: number };
      };
      expect(stale.status).toBe('sync_stale');
      expect(stale.sync.consecutiveFailures).toBeGreaterThan(0);
    } finally {
      await runtime.close();
    }
  });
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

describe('SIGTERM under load', () => {
  it('finishes every call in flight in both eras, then exits 0', { timeout: 60_000 }, async () => {
    const run = start({
      SVC_FOLDER_PATH: folder.dir,
      SVC_UPSTREAM_SECRET: 'sk-sigterm-5678efgh',
      MCP_RUNTIME_PORT: '0',
      SVC_SHUTDOWN_GRACE_MS: '20000',
    });
    const started = () =>
      run.lines
        .map((l) => JSON.parse(l) as { event: string; mcp?: string })
        .find((r) => r.event === 'runtime_started');
    await expect.poll(started, { timeout: 20_000 }).toBeDefined();
    const url = started()!.mcp!;
    const modern = await connectClient(url, 'sigterm-modern', 'modern');
    const legacy = await connectClient(url, 'sigterm-legacy', 'legacy');
    const slowSeen = () => upstream.requests.filter((r) => r.path === '/api/slow').length;
    const before = slowSeen();
    const calls = [modern, legacy].flatMap((client) =>
      Array.from({ length: 6 }, () => client.callTool({ name: 'slow', arguments: { ms: 1500 } })),
    );
    // Every call has reached the upstream: all twelve are in flight when SIGTERM arrives.
    await expect.poll(slowSeen, { timeout: 10_000, interval: 20 }).toBe(before + 12);
    run.child.kill('SIGTERM');
    const results = await Promise.all(calls);
    for (const result of results) {
      expect(result.isError, JSON.stringify(result)).toBeFalsy();
      expect(JSON.parse((result.content as { text: string }[])[0]!.text)).toEqual({ waited: 1500 });
    }
    expect(await run.exit).toBe(0);
    // Gone: a new connection is refused.
    await expect(fetch(url.replace('/mcp', '/healthz'))).rejects.toThrow();
    await modern.close().catch(() => undefined);
    await legacy.close().catch(() => undefined);
  });

  it('waits no longer than SVC_SHUTDOWN_GRACE_MS for a call that does not end', {
    timeout: 30_000,
  }, async () => {
    const run = start({
      SVC_FOLDER_PATH: folder.dir,
      SVC_UPSTREAM_SECRET: 'sk-sigterm-5678efgh',
      MCP_RUNTIME_PORT: '0',
      SVC_SHUTDOWN_GRACE_MS: '200',
    });
    const started = () =>
      run.lines
        .map((l) => JSON.parse(l) as { event: string; mcp?: string })
        .find((r) => r.event === 'runtime_started');
    await expect.poll(started, { timeout: 20_000 }).toBeDefined();
    const client = await connectClient(started()!.mcp!, 'sigterm-grace', 'modern');
    const before = upstream.requests.filter((r) => r.path === '/api/slow').length;
    const call = client.callTool({ name: 'slow', arguments: { ms: 8000 } }).catch((e: Error) => e);
    await expect
      .poll(() => upstream.requests.filter((r) => r.path === '/api/slow').length, {
        timeout: 10_000,
        interval: 20,
      })
      .toBe(before + 1);
    const signalled = Date.now();
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    // The grace (200 ms) and the forced close of connections (2 s), not the call's 8 s.
    expect(Date.now() - signalled).toBeLessThan(5000);
    await call;
    await client.close().catch(() => undefined);
  });
});
