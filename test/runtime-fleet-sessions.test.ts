/**
 * Portable 2025-era sessions (SVC_SESSION_SECRET, contracts/fleet.md): three replicas of one
 * server, each a createApp of its own (no shared memory), reached round-robin by the SDK's own
 * client. A session opened on one is served by the others with the config it started with; a
 * forged id, an id past its absolute expiry, or one whose config a replica no longer holds is
 * 404 so the client starts over; without the secret nothing changes. Clocks are injected.
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { readFile, writeFile } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { FolderModel } from '../folder/model.js';
import {
  createApp,
  createConfigStore,
  loadFolderDir,
  parseRuntimeEnv,
  startRuntime,
  type ConfigStore,
  type RuntimeApp,
} from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

const UPSTREAM_SECRET = 'sk-fleet-3f9a7b2c1d';
const SESSION_SECRET = randomBytes(32).toString('base64');
const URL_BASE = 'http://127.0.0.1:3002/mcp';
const HEADERS = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  host: '127.0.0.1:3002',
};

let upstream: EchoUpstream;
let folder: TempFolder;
let searchFolder: TempFolder;
let model: FolderModel;
let searchModel: FolderModel;

interface Replica {
  app: RuntimeApp;
  store: ConfigStore;
}
interface Fleet {
  replicas: Replica[];
  clock: { now: number };
  /** Sends each request to the next replica, round-robin; counts initialize requests. */
  fetch: typeof fetch;
  initializes: () => number;
}
const fleets: Fleet[] = [];

function startFleet(
  folderModel: FolderModel,
  vars: Record<string, string> = { SVC_SESSION_SECRET: SESSION_SECRET },
): Fleet {
  const clock = { now: Date.UTC(2026, 10, 26, 12) };
  const env = parseRuntimeEnv({ SVC_UPSTREAM_SECRET: UPSTREAM_SECRET, ...vars });
  const replicas = [0, 1, 2].map(() => {
    const store = createConfigStore(folderModel, { keep: env.configVersions });
    const app = createApp({ store, env, now: () => clock.now, sessionIdleMs: 1000 });
    return { app, store };
  });
  let next = 0;
  let initializes = 0;
  const fleet: Fleet = {
    replicas,
    clock,
    initializes: () => initializes,
    fetch: async (input, init) => {
      const request = new Request(input, init);
      request.headers.set('host', '127.0.0.1:3002');
      if (request.method === 'POST' && (await request.clone().text()).includes('"method":"initialize"'))
        initializes++;
      const replica = replicas[next++ % replicas.length]!;
      return replica.app.app.fetch(request);
    },
  };
  fleets.push(fleet);
  return fleet;
}

async function initialize(replica: Replica, capabilities: Record<string, unknown> = {}): Promise<string> {
  const response = await replica.app.app.fetch(
    new Request(URL_BASE, {
      method: 'POST',
      headers: HEADERS,
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-11-25', capabilities, clientInfo: { name: 'raw', version: '1' } },
      }),
    }),
  );
  expect(response.status).toBe(200);
  await response.text();
  const id = response.headers.get('mcp-session-id');
  expect(id).toMatch(/^[\x21-\x7e]+$/);
  return id!;
}

async function rpc(
  replica: Replica,
  sid: string,
  method: string,
  params: unknown = {},
  id = 2,
): Promise<Response> {
  return await replica.app.app.fetch(
    new Request(URL_BASE, {
      method: 'POST',
      headers: { ...HEADERS, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
    }),
  );
}

async function toolNames(response: Response): Promise<string[]> {
  expect(response.status).toBe(200);
  const text = await response.text();
  const json = text.startsWith('{') ? JSON.parse(text) : JSON.parse(text.split('data: ')[1]!);
  return (json.result.tools as { name: string }[]).map((t) => t.name);
}

/** The folder with one more tool disabled: another config version, another digest. */
function without(base: FolderModel, key: string): FolderModel {
  return {
    ...base,
    tools: base.tools.map((t) => (t.key === key ? { ...t, tool: { ...t.tool, enabled: false } } : t)),
  };
}

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  model = (await loadFolderDir(folder.dir)).folder;
  searchFolder = await copyFixtureFolder(
    'fixtures/runtime/basic',
    `${upstream.url}/api`,
    (c) => `${c}discovery: search\n`,
  );
  const pin = join(searchFolder.dir, 'Tools', 'status.yaml');
  await writeFile(pin, (await readFile(pin, 'utf8')).replace('enabled: true', 'enabled: true\npinned: true'));
  searchModel = (await loadFolderDir(searchFolder.dir)).folder;
});
afterEach(async () => {
  for (const fleet of fleets.splice(0)) await Promise.all(fleet.replicas.map((r) => r.app.close(0)));
});
afterAll(async () => {
  await upstream?.close();
  await folder?.remove();
  await searchFolder?.remove();
});

describe('portable sessions', () => {
  it.each(['legacy', 'modern'] as const)(
    'serve %s clients round-robin over three replicas: no failure, no second initialize',
    async (era) => {
      const fleet = startFleet(model);
      const client = new Client(
        { name: `fleet-${era}`, version: '1.0.0' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(URL_BASE), { fetch: fleet.fetch }));
      for (let i = 0; i < 30; i++) {
        const result = await client.callTool({ name: 'echo_get', arguments: { id: `f${i}` } });
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(JSON.stringify(result)).not.toContain(UPSTREAM_SECRET);
        expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo_get');
        // prompts/list is not on the hot path: the SDK serves it on each replica's rebuilt session.
        expect((await client.listPrompts()).prompts.length).toBeGreaterThan(0);
      }
      expect(fleet.initializes()).toBe(era === 'legacy' ? 1 : 0);
      if (era === 'legacy') {
        // Every replica served the session, and the hot path served its tools/call and tools/list.
        for (const r of fleet.replicas) expect(r.app.sessionCount()).toBe(1);
        const hot = fleet.replicas.reduce((sum, r) => sum + r.app.hotPathServed(), 0);
        expect(hot).toBe(60);
      }
      await client.close();
    },
  );

  it('without SVC_SESSION_SECRET stay on the replica that opened them (404 elsewhere)', async () => {
    const [a, b] = startFleet(model, {}).replicas;
    const sid = await initialize(a!);
    expect(await toolNames(await rpc(a!, sid, 'tools/list'))).toContain('echo_get');
    expect((await rpc(b!, sid, 'tools/list')).status).toBe(404);
  });

  it('refuse a forged, altered or foreign id with 404', async () => {
    const [a, b] = startFleet(model).replicas;
    const sid = await initialize(a!);
    const [prefix, claims, mac] = sid.split('.');
    const decoded = JSON.parse(Buffer.from(claims!, 'base64url').toString());
    const altered = `${prefix}.${Buffer.from(JSON.stringify({ ...decoded, e: decoded.e + 1e6 })).toString('base64url')}.${mac}`;
    expect((await rpc(b!, altered, 'tools/list')).status).toBe(404);
    expect((await rpc(b!, `${sid.slice(0, -2)}AA`, 'tools/list')).status).toBe(404);
    const [other] = startFleet(model, { SVC_SESSION_SECRET: randomBytes(32).toString('hex') }).replicas;
    const foreign = await initialize(other!);
    expect((await rpc(b!, foreign, 'tools/list')).status).toBe(404);
    expect((await rpc(b!, sid, 'tools/list')).status).toBe(200);
    // A session is pinned to its path on every replica.
    const scoped = await b!.app.app.fetch(
      new Request(`${URL_BASE}/echo-api`, {
        method: 'POST',
        headers: { ...HEADERS, 'mcp-session-id': sid },
        body: JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'tools/list', params: {} }),
      }),
    );
    expect(scoped.status).toBe(404);
  });

  it('keep the config they started with on every replica; 404 once a replica no longer holds it', async () => {
    const [a, b, c] = startFleet(model).replicas;
    const sid = await initialize(a!);
    const v1 = a!.store.current().digest;
    expect(v1.startsWith(tokenDigest(sid))).toBe(true);
    const v2 = without(model, 'echo_text');
    for (const r of [a!, b!, c!]) r.store.swap(v2);
    // b never saw this session: it rebuilds it on the config it started with, not the newest.
    const onB = await rpc(b!, sid, 'tools/list');
    expect(onB.headers.get('svc-config-commit')).toBe(`sha256:${v1}`);
    expect(await toolNames(onB)).toContain('echo_text');
    const fresh = await initialize(c!);
    expect(await toolNames(await rpc(c!, fresh, 'tools/list'))).not.toContain('echo_text');
    // A replica keeps three versions (SVC_CONFIG_VERSIONS default): v1 is still held after two swaps…
    c!.store.swap(without(v2, 'echo_json'));
    expect((await rpc(c!, sid, 'tools/list')).status).toBe(200);
    // …and gone after three, for a replica that has not served the session yet.
    const [, , c2] = startFleet(model).replicas;
    c2!.store.swap(v2);
    c2!.store.swap(without(v2, 'echo_json'));
    c2!.store.swap(without(v2, 'echo_form'));
    const gone = await rpc(c2!, sid, 'tools/list');
    expect(gone.status).toBe(404);
    expect((await gone.json()).error.code).toBe(-32001);
  });

  it('end at their absolute expiry on every replica; idleness only makes a replica forget', async () => {
    const fleet = startFleet(model, { SVC_SESSION_SECRET: SESSION_SECRET, SVC_SESSION_MAX_AGE: '120' });
    const [a, b] = fleet.replicas;
    const sid = await initialize(a!);
    fleet.clock.now += 5_000; // past the 1 s idle period
    expect((await rpc(a!, sid, 'tools/list')).status).toBe(200);
    fleet.clock.now += 116_000;
    expect((await rpc(b!, sid, 'tools/list')).status).toBe(404);
    expect((await rpc(a!, sid, 'tools/list')).status).toBe(404);
  });

  it('end on DELETE on the replica that received it; the others serve it until it expires', async () => {
    const [a, b] = startFleet(model).replicas;
    const sid = await initialize(a!);
    const deleted = await a!.app.app.fetch(
      new Request(URL_BASE, {
        method: 'DELETE',
        headers: { host: HEADERS.host, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
      }),
    );
    expect(deleted.status).toBe(200);
    expect((await rpc(a!, sid, 'tools/list')).status).toBe(404);
    // The stateless design's limit (docs/fleet.md): no replica tells the others.
    expect((await rpc(b!, sid, 'tools/list')).status).toBe(200);
  });

  it("rebuild the client's capabilities: a write found by search asks the person on another replica", async () => {
    const [a, b] = startFleet(searchModel).replicas;
    const call = { name: 'call_tool', arguments: { name: 'echo_json', arguments: { name: 'x' } } };
    const asking = await initialize(a!, { elicitation: { form: {} } });
    // The answer stays open until the person answers: read up to the question only.
    const asked = await readUntil(await rpc(b!, asking, 'tools/call', call), 'elicitation/create');
    expect(asked).toContain('elicitation/create');
    const cannot = await initialize(a!, {});
    const refused = await (await rpc(b!, cannot, 'tools/call', call)).text();
    expect(refused).not.toContain('elicitation/create');
    expect(refused).toContain('cannot ask');
  });
});

describe('search-mode confirmations across replicas', () => {
  it.each([
    ['with SVC_SESSION_SECRET', { SVC_SESSION_SECRET: SESSION_SECRET }, 1],
    ['without it (asked again, so the write never runs)', {}, 0],
  ] as const)(
    'a 2026 confirmation asked by one replica and answered on another, %s',
    async (_, vars, runs) => {
      const fleet = startFleet(searchModel, vars);
      const asked: string[] = [];
      const client = new Client(
        { name: 'confirm', version: '1' },
        { versionNegotiation: { mode: { pin: '2026-07-28' } }, capabilities: { elicitation: { form: {} } } },
      );
      client.setRequestHandler('elicitation/create', (request) => {
        asked.push(String((request.params as { message?: string }).message));
        return { action: 'accept', content: { confirm: true } };
      });
      await client.connect(new StreamableHTTPClientTransport(new URL(URL_BASE), { fetch: fleet.fetch }));
      const before = upstream.requests.length;
      const result = await client
        .callTool({ name: 'call_tool', arguments: { name: 'echo_json', arguments: { name: 'fleet' } } })
        .then(
          (r) => r,
          (error: Error) => ({ isError: true, content: [{ type: 'text', text: error.message }] }),
        );
      expect(upstream.requests.length - before).toBe(runs);
      if (runs === 1) {
        expect(result.isError, JSON.stringify(result)).toBeFalsy();
        expect(asked.length).toBe(1);
      } else expect(result.isError).toBe(true);
      await client.close();
    },
  );
});

describe('Svc-Config-Commit', () => {
  it('names the config that produced each answer: the newest, or the session’s own', async () => {
    const [a, b] = startFleet(model).replicas;
    const first = `sha256:${a!.store.current().digest}`;
    const sid = await initialize(a!);
    const stateless = await a!.app.app.fetch(
      new Request(URL_BASE, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
      }),
    );
    expect(stateless.headers.get('svc-config-commit')).toBe(first);
    b!.store.swap(without(model, 'echo_text'), { commit: 'a'.repeat(40) });
    const onB = await rpc(b!, sid, 'tools/list');
    expect(onB.headers.get('svc-config-commit')).toBe(first);
    const newer = await initialize(b!);
    expect((await rpc(b!, newer, 'tools/list')).headers.get('svc-config-commit')).toBe('a'.repeat(40));
    expect((await rpc(b!, 'unknown', 'tools/list')).headers.get('svc-config-commit')).toBe('a'.repeat(40));
    // The 2025 initialize result names it too, as semver build metadata of serverInfo.version.
    const init = await b!.app.app.fetch(
      new Request(URL_BASE, {
        method: 'POST',
        headers: HEADERS,
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: {
            protocolVersion: '2025-11-25',
            capabilities: {},
            clientInfo: { name: 'raw', version: '1' },
          },
        }),
      }),
    );
    const text = await init.text();
    expect(JSON.parse(text.slice(text.indexOf('{'))).result.serverInfo.version).toBe(
      `0.1.0+${'a'.repeat(12)}`,
    );
  });
});

async function readUntil(response: Response, needle: string): Promise<string> {
  const reader = response.body!.getReader();
  let text = '';
  while (!text.includes(needle)) {
    const { done, value } = await reader.read();
    if (done) break;
    text += Buffer.from(value).toString('utf8');
  }
  await reader.cancel();
  return text;
}

describe('/readyz in sync mode', () => {
  it('answers 503 until the first poll has settled, then 200', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const service = createServer(async (_req, res) => {
      await held;
      res.writeHead(503).end();
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    const runtime = await startRuntime({
      env: parseRuntimeEnv({
        MCP_RUNTIME_PORT: '0',
        SVC_UPSTREAM_SECRET: UPSTREAM_SECRET,
        SVC_SYNC_URL: `http://127.0.0.1:${(service.address() as AddressInfo).port}`,
        SVC_DEPLOY_TOKEN: 'dpl-ready',
      }),
      folder: model,
      logger: { log() {} },
      syncIntervalMs: 3_600_000,
    });
    try {
      const readyz = `${runtime.url.replace(/\/mcp$/, '')}/readyz`;
      expect((await fetch(readyz)).status).toBe(503);
      release();
      await runtime.sync!.pollNow();
      expect((await fetch(readyz)).status).toBe(200);
    } finally {
      await runtime.close();
      service.closeAllConnections();
      await new Promise((r) => service.close(r));
    }
  });
});

function tokenDigest(sid: string): string {
  return JSON.parse(Buffer.from(sid.split('.')[1]!, 'base64url').toString()).d;
}
