/**
 * A fleet in sync mode (contracts/fleet.md): haproxy round-robin in front of three runtimes that
 * poll the real control service for its signed snapshot (SVC_SNAPSHOT_PUBLIC_KEY) and share
 * SVC_SESSION_SECRET. A merge reaches every replica within one poll interval; a 2025-era session
 * opened before it keeps its tools on every replica, while new sessions and 2026 requests get the
 * new commit; each replica is ready (/readyz) only once its first poll settled; the control
 * service lists the three runtimes and the commit each fetched.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, type ServerRepo } from '../control/testing/server-repo.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import { type Haproxy, startHaproxy } from '../runtime/testing/haproxy.js';
import { connectClient } from './helpers/mcp-client.js';
import { svc } from './helpers/run-cli.js';

const INTERVAL_MS = 300;
let root: string;
let repo: ServerRepo;
let control: RunningControl;
let pat: string;
let replicas: RunningRuntime[] = [];
let haproxy: Haproxy | undefined;
const clients: Client[] = [];

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json', ...init.headers },
  });

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-fleet-sync-'));
  repo = await createServerRepo({ enableAllTools: true });
  const data = join(root, 'control');
  control = await startControl({
    port: 0,
    dataDir: data,
    worker: false,
    headRefreshMs: 0,
    logger: { log() {} },
  });
  pat = (await control.store.createWorkspaceToken('fleet')).token;
  const registered = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
  });
  expect(registered.status).toBe(201);
  const deploy = (await (
    await api('/v1/servers/pets/deploy-tokens', { method: 'POST', body: '{}' })
  ).json()) as {
    token: string;
  };
  const publicKey = (await svc(['control', 'key', '--data', data], { cwd: root })).stdout;
  const sessionSecret = randomBytes(32).toString('hex');
  replicas = await Promise.all(
    [1, 2, 3].map((i) =>
      startRuntime({
        env: parseRuntimeEnv({
          MCP_RUNTIME_PORT: '0',
          SVC_SYNC_URL: control.url,
          SVC_DEPLOY_TOKEN: deploy.token,
          SVC_SNAPSHOT_PUBLIC_KEY: publicKey,
          SVC_SESSION_SECRET: sessionSecret,
          SVC_RUNTIME_ID: `replica-${i}`,
        }),
        folderDir: join(repo.repo.dir, FOLDER),
        logger: { log() {} },
        syncIntervalMs: INTERVAL_MS,
      }),
    ),
  );
  // haproxy sends traffic to a replica only once its /readyz says its first poll settled.
  haproxy = await startHaproxy(replicas.map((r) => r.port));
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await haproxy?.close();
  await Promise.all(replicas.map((r) => r.close()));
  await control?.close();
  repo?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

async function connect(era: 'legacy' | 'modern', name: string): Promise<Client> {
  const client = await connectClient(`${haproxy!.origin}/mcp`, name, era);
  clients.push(client);
  return client;
}

const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();

it('a merge reaches every replica within one poll interval; sessions opened before keep their tools everywhere', async () => {
  for (const r of replicas) {
    const ready = await fetch(`${r.url.replace(/\/mcp$/, '')}/readyz`);
    expect(ready.status).toBe(200);
  }
  const before = await connect('legacy', 'before');
  expect(await names(before)).toContain('deletePet');

  const toolFile = join(repo.repo.dir, FOLDER, 'Tools', 'deletePet.yaml');
  const pushedAt = Date.now();
  const commit = repo.push(
    {
      [`${FOLDER}/Tools/deletePet.yaml`]: readFileSync(toolFile, 'utf8').replace(
        'enabled: true',
        'enabled: false',
      ),
    },
    'turn deletePet off (#7)',
  );
  await expect
    .poll(() => replicas.every((r) => r.store.current().commit === commit), { timeout: 10_000, interval: 20 })
    .toBe(true);
  const tookMs = Date.now() - pushedAt;
  // One interval plus the poll itself (a git head lookup and an export); generous for busy CI machines.
  expect(tookMs).toBeLessThan(2 * INTERVAL_MS + 3000);
  console.log(
    `fleet sync: merge → all 3 replicas serving ${commit.slice(0, 7)} in ${tookMs} ms (poll every ${INTERVAL_MS} ms)`,
  );

  // Round-robin: six requests of the old session touch every replica twice; each serves its old tools.
  for (let i = 0; i < 6; i++) expect(await names(before)).toContain('deletePet');
  const after = await connect('legacy', 'after');
  const modern = await connect('modern', 'modern');
  for (let i = 0; i < 3; i++) {
    expect(await names(after)).not.toContain('deletePet');
    expect(await names(modern)).not.toContain('deletePet');
  }

  const runtimes = (await (await api('/v1/servers/pets/runtimes')).json()) as {
    runtimeId: string;
    commit: string;
  }[];
  expect(runtimes.map((r) => r.runtimeId).sort()).toEqual(['replica-1', 'replica-2', 'replica-3']);
  expect(runtimes.every((r) => r.commit === commit)).toBe(true);
}, 60_000);
