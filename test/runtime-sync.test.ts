/**
 * Config sync end to end (spec 3.4, 4.1, 7): startRuntime with SVC_SYNC_URL polls a real
 * snapshot service on 127.0.0.1 that records every request (bearer token, If-None-Match) and
 * serves v1, then v2 of a real folder (built with exportFolder), then 304, 403, garbage, a
 * snapshot for another server and a dropped connection. The MCP SDK's own clients show that a
 * new client sees v2's tools right after the swap, that a 2025-11-25 session opened before it
 * keeps v1's, and that the runtime keeps serving v2 through every failure.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FolderFiles, readFolder } from '../folder/index.js';
import { exportFolder } from '../generator/render/index.js';
import {
  type LogRecord,
  memoryLogger,
  parseRuntimeEnv,
  type RunningRuntime,
  startRuntime,
} from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import type { SvcExport } from '../schemas/types.js';
import { connectClient } from './helpers/mcp-client.js';

const SECRET = 'sk-sync-0a1b2c3d4e5f6789';
const TOKEN = 'dpl-sync-9f8e7d6c5b4a3210';
const FIXTURE = 'fixtures/runtime/basic';
const SNAPSHOT_PATH = '/v1/servers/echo-api/export/snapshot';

type Mode = 'v1' | 'v2' | 'forbidden' | 'garbage' | 'other-server' | 'drop';
interface SnapshotRequest {
  path: string;
  authorization: string | undefined;
  ifNoneMatch: string | undefined;
  status: number;
}

interface SnapshotService {
  url: string;
  mode: Mode;
  requests: SnapshotRequest[];
  close(): Promise<void>;
}

async function startSnapshotService(snapshots: Record<'v1' | 'v2', SvcExport>): Promise<SnapshotService> {
  const other = structuredClone(snapshots.v2);
  other.server.server.id = 'other-api';
  other.files['config.yaml'] = other.files['config.yaml']!.replace('id: echo-api', 'id: other-api');
  const service: SnapshotService = { url: '', mode: 'v1', requests: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    const record = (status: number) =>
      service.requests.push({
        path: req.url ?? '',
        authorization: req.headers.authorization,
        ifNoneMatch: req.headers['if-none-match'],
        status,
      });
    const mode = service.mode;
    if (req.url !== SNAPSHOT_PATH || req.headers.authorization !== `Bearer ${TOKEN}`) {
      record(404);
      res.writeHead(404).end();
      return;
    }
    if (mode === 'drop') {
      record(0);
      req.socket.destroy();
      return;
    }
    if (mode === 'forbidden') {
      record(403);
      res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":"token revoked"}');
      return;
    }
    if (mode === 'garbage') {
      record(200);
      res.writeHead(200, { 'content-type': 'application/json' }).end('<html>maintenance</html>');
      return;
    }
    const body = mode === 'other-server' ? other : snapshots[mode];
    const etag = `"${mode}"`;
    if (req.headers['if-none-match'] === etag) {
      record(304);
      res.writeHead(304, { etag }).end();
      return;
    }
    record(200);
    res.writeHead(200, { 'content-type': 'application/json', etag }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  service.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return service;
}

async function until<T>(what: string, probe: () => T | undefined | false, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let upstream: EchoUpstream;
let folder: TempFolder;
let snapshots: Record<'v1' | 'v2', SvcExport>;
let service: SnapshotService;
const cleanup: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder(FIXTURE, `${upstream.url}/api`);
  const files: FolderFiles = await readFolder(folder.dir);
  snapshots = {
    v1: exportFolder(files),
    v2: exportFolder({
      ...files,
      'Tools/synced_echo.yaml': files['Tools/echo_get.yaml']!.replace('name: echo_get', 'name: synced_echo'),
      'Tools/echo_json.yaml': files['Tools/echo_json.yaml']!.replace('enabled: true', 'enabled: false'),
    }),
  };
  service = await startSnapshotService(snapshots);
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await service?.close();
  await upstream?.close();
  await folder?.remove();
});

async function connect(url: string, era: 'modern' | 'legacy'): Promise<Client> {
  const client = await connectClient(url, `sync-${era}`, era);
  cleanup.push(() => client.close());
  return client;
}

async function toolNames(client: Client): Promise<string[]> {
  return (await client.listTools()).tools.map((t) => t.name);
}

async function boot(dir: string, vars: Record<string, string>, syncIntervalMs: number) {
  const logger = memoryLogger();
  const runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_SYNC_URL: service.url,
      SVC_DEPLOY_TOKEN: TOKEN,
      ...vars,
    }),
    folderDir: dir,
    logger,
    syncIntervalMs,
    syncTimeoutMs: 2000,
  });
  cleanup.push(() => runtime.close());
  const events = (name: string): LogRecord[] => logger.records.filter((r) => r.event === name);
  return { runtime, logger, events };
}

describe('sync: a runtime following the published snapshot', () => {
  let runtime: RunningRuntime;
  let logger: ReturnType<typeof memoryLogger>;
  let events: (name: string) => LogRecord[];
  let legacy: Client;

  beforeAll(async () => {
    service.mode = 'v1';
    service.requests.length = 0;
    ({ runtime, logger, events } = await boot(folder.dir, { SVC_UPSTREAM_SECRET: SECRET }, 100));
  });

  it('polls at once with the deploy token, then with If-None-Match; v1 again changes nothing', async () => {
    await until('a conditional poll', () => service.requests.find((r) => r.status === 304));
    const [first, second] = service.requests;
    expect(first).toMatchObject({ path: SNAPSHOT_PATH, authorization: `Bearer ${TOKEN}`, status: 200 });
    expect(first!.ifNoneMatch).toBeUndefined();
    expect(second).toMatchObject({ ifNoneMatch: '"v1"', status: 304 });
    expect(runtime.store.version()).toBe(1);
    expect(events('sync_updated')).toHaveLength(0);
    expect(events('sync_not_supported')).toHaveLength(0);
    expect(events('sync_started')[0]).toMatchObject({ url: `${service.url}${SNAPSHOT_PATH}` });
    legacy = await connect(runtime.url, 'legacy');
    expect(await toolNames(legacy)).toContain('echo_json');
  });

  it('swaps in v2: a new client sees the new tool set, an older session keeps its own', async () => {
    service.mode = 'v2';
    const [updated] = await until(
      'sync_updated',
      () => events('sync_updated').length > 0 && events('sync_updated'),
    );
    expect(updated).toMatchObject({ level: 'info', version: 2, etag: '"v2"' });
    expect(runtime.store.version()).toBe(2);

    for (const era of ['modern', 'legacy'] as const) {
      const names = await toolNames(await connect(runtime.url, era));
      expect(names).toContain('synced_echo');
      expect(names).not.toContain('echo_json');
    }
    const fresh = await connect(runtime.url, 'modern');
    const result = await fresh.callTool({ name: 'synced_echo', arguments: { id: 'after-swap' } });
    expect(result.isError).toBeFalsy();
    const seen = upstream.requests.at(-1)!;
    expect(seen.path).toBe('/api/echo/items/after-swap');
    expect(seen.headers['x-api-key']).toBe(SECRET);

    const old = await toolNames(legacy);
    expect(old).toContain('echo_json');
    expect(old).not.toContain('synced_echo');

    await until('a 304 for v2', () =>
      service.requests.find((r) => r.ifNoneMatch === '"v2"' && r.status === 304),
    );
    expect(runtime.store.version()).toBe(2);
  });

  const failures: [Mode, string, RegExp | undefined][] = [
    ['forbidden', 'sync_forbidden', undefined],
    ['garbage', 'sync_failed', /not JSON/],
    ['other-server', 'sync_failed', /server "other-api", this runtime serves "echo-api"/],
    ['drop', 'sync_failed', /network error/],
  ];
  it.each(failures)('keeps serving v2 when the service answers %s', async (mode, event, reason) => {
    const seen = events(event).length;
    service.mode = mode;
    // Two failed ticks: the runtime logs each and keeps retrying.
    const records = await until(event, () => events(event).length >= seen + 2 && events(event));
    const last = records.at(-1)!;
    expect(last).toMatchObject({ level: 'warn', keptVersion: 2 });
    if (reason) expect(String(last.reason)).toMatch(reason);
    expect(runtime.store.version()).toBe(2);
    const names = await toolNames(await connect(runtime.url, 'modern'));
    expect(names).toContain('synced_echo');
    expect(names).not.toContain('echo_json');
  });

  it('recovers when the service answers again, never logs the token, and stops polling on close', async () => {
    service.mode = 'v2';
    const before = service.requests.length;
    await until('a poll after recovery', () =>
      service.requests.slice(before).find((r) => r.ifNoneMatch === '"v2"' && r.status === 304),
    );
    expect(runtime.store.version()).toBe(2);
    expect(logger.lines.join('')).not.toContain(TOKEN);
    expect(logger.lines.join('')).not.toContain(SECRET);
    const poller = runtime.sync!;
    await runtime.close();
    const after = service.requests.length;
    // close() stopped the poller itself: it polls no more, now or on its schedule (a stopped
    // poller sets no timer: runtime/sync/snapshot-poller.test.ts).
    expect(await poller.pollNow()).toEqual({ kind: 'stopped' });
    expect(service.requests.length).toBe(after);
  });
});

describe('sync at boot', () => {
  it('catches up on the first poll, without waiting for the interval', async () => {
    service.mode = 'v2';
    service.requests.length = 0;
    const { runtime, events } = await boot(folder.dir, { SVC_UPSTREAM_SECRET: SECRET }, 60_000);
    await until('sync_updated', () => events('sync_updated').length > 0);
    expect(runtime.store.version()).toBe(2);
    expect(await toolNames(await connect(runtime.url, 'modern'))).toContain('synced_echo');
    expect(service.requests).toHaveLength(1);
  });

  it('refuses a synced config that needs SVC_UPSTREAM_SECRET when it is absent, as boot would', async () => {
    const none = await copyFixtureFolder(FIXTURE, `${upstream.url}/api`, (c) =>
      c
        .replace(/ {2}mode: api_key\n {2}apiKey:\n {4}in: header\n {4}name: X-Api-Key\n/, '  mode: none\n')
        .replace('hasAuthSecret: true', 'hasAuthSecret: false')
        .replace('requiredEnv:\n  - SVC_UPSTREAM_SECRET', 'requiredEnv: []'),
    );
    cleanup.push(() => none.remove());
    service.mode = 'v2';
    const { runtime, events } = await boot(none.dir, {}, 60_000);
    const [failed] = await until(
      'sync_failed',
      () => events('sync_failed').length > 0 && events('sync_failed'),
    );
    expect(String(failed!.reason)).toMatch(/SVC_UPSTREAM_SECRET is not set/);
    expect(runtime.store.version()).toBe(1);
    expect(await toolNames(await connect(runtime.url, 'modern'))).not.toContain('synced_echo');
  });
});
