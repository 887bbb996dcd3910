/**
 * `npm run bench -- fleet` (issue 21): calls/s through Debian's haproxy (round-robin) to 1, 2 and
 * 3 runtime replicas, each its own process (dist/runtime/main.js) sharing SVC_SESSION_SECRET, with
 * the MCP SDK's own client in both eras; and what portable sessions cost: calls/s of 2025
 * sessions straight to one replica with and without the secret, and the one-time rebuild of a
 * session on a replica that has not seen it. On two cores the balancer, the replicas, the
 * upstream and the load generator share the machine: the figures show haproxy's cost, not scaling.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { packageRoot } from '../core/package-root.js';
import { createApp, createConfigStore, loadFolderDir, parseRuntimeEnv } from '../runtime/index.js';
import {
  copyFixtureFolder,
  haproxyBinary,
  startEchoUpstream,
  startHaproxy,
} from '../runtime/testing/index.js';

const WORKERS = 8;
const CALLS = 1500;
const SECRET = 'sk-fleet-bench-0123456789';

interface Replica {
  child: ChildProcess;
  port: number;
}

async function startReplica(folder: string, sessionSecret: string | undefined): Promise<Replica> {
  const entry = join(packageRoot(), 'dist', 'runtime', 'main.js');
  const child = spawn(process.execPath, [entry], {
    env: {
      PATH: process.env.PATH ?? '',
      MCP_RUNTIME_PORT: '0',
      SVC_FOLDER_PATH: folder,
      SVC_UPSTREAM_SECRET: SECRET,
      ...(sessionSecret ? { SVC_SESSION_SECRET: sessionSecret } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stderr!.on('data', (d: Buffer) => {
      text += d.toString();
      const match = /"event":"runtime_started".*?"mcp":"http:\/\/[^:]+:(\d+)\/mcp"/.exec(text);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', () => reject(new Error(`the replica exited: ${text}`)));
  });
  return { child, port };
}

async function stop(replicas: Replica[]): Promise<void> {
  await Promise.all(
    replicas.map(
      (r) =>
        new Promise<void>((resolve) => {
          if (r.child.exitCode !== null) return resolve();
          r.child.once('exit', () => resolve());
          r.child.kill('SIGTERM');
        }),
    ),
  );
}

/** calls/s of WORKERS SDK clients, each calling echo_get in turn until CALLS are done; failures counted. */
async function load(url: string, era: 'legacy' | 'modern'): Promise<{ perSec: number; failures: number }> {
  const clients = await Promise.all(
    Array.from({ length: WORKERS }, async (_, i) => {
      const client = new Client(
        { name: `fleet-bench-${i}`, version: '1' },
        era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
      );
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      return client;
    }),
  );
  // Warm-up: every replica sees every session once.
  await Promise.all(clients.map((c) => Promise.all([1, 2, 3].map(() => c.listTools()))));
  let next = 0;
  let failures = 0;
  const started = performance.now();
  await Promise.all(
    clients.map(async (client, w) => {
      while (next < CALLS) {
        const seq = next++;
        const id = `w${w}-${seq}`;
        try {
          const result = await client.callTool({ name: 'echo_get', arguments: { id } });
          if (result.isError || !JSON.stringify(result).includes(id)) failures++;
        } catch {
          failures++;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(clients.map((c) => c.close()));
  return { perSec: CALLS / seconds, failures };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

/** Median µs of a session's first request on a replica that has not seen it (rebuilt from its token) and of its next one. */
async function reviveCost(folderDir: string): Promise<{ reviveUs: number; knownUs: number }> {
  const model = (await loadFolderDir(folderDir)).folder;
  const env = parseRuntimeEnv({
    SVC_UPSTREAM_SECRET: SECRET,
    SVC_SESSION_SECRET: randomBytes(32).toString('hex'),
  });
  const [a, b] = [0, 1].map(() => createApp({ store: createConfigStore(model), env }));
  const headers = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    host: '127.0.0.1:3002',
  };
  const post = (app: typeof a, body: unknown, sid?: string) =>
    app!.app.fetch(
      new Request('http://127.0.0.1:3002/mcp', {
        method: 'POST',
        headers: sid ? { ...headers, 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' } : headers,
        body: JSON.stringify(body),
      }),
    );
  const revive: number[] = [];
  const known: number[] = [];
  const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
  for (let i = 0; i < 300; i++) {
    const init = await post(a, {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    });
    await init.text();
    const sid = init.headers.get('mcp-session-id')!;
    let t = performance.now();
    await (await post(b, list, sid)).text();
    revive.push((performance.now() - t) * 1000);
    t = performance.now();
    await (await post(b, list, sid)).text();
    known.push((performance.now() - t) * 1000);
  }
  await a!.close(0);
  await b!.close(0);
  return { reviveUs: median(revive), knownUs: median(known) };
}

export async function runFleetBench(): Promise<void> {
  if (!haproxyBinary()) {
    console.log('haproxy is not installed (apt-get install haproxy): the fleet section is skipped');
    return;
  }
  const upstream = await startEchoUpstream({ record: false });
  const folder = await copyFixtureFolder(
    join(packageRoot(), 'fixtures', 'runtime', 'basic'),
    `${upstream.url}/api`,
  );
  const sessionSecret = randomBytes(32).toString('base64');
  try {
    const ROUNDS = 3;
    const rows = new Map<string, { modern: number[]; legacy: number[]; failures: number }>();
    const record = async (label: string, url: string) => {
      let row = rows.get(label);
      if (!row) {
        row = { modern: [], legacy: [], failures: 0 };
        rows.set(label, row);
      }
      const modern = await load(url, 'modern');
      const legacy = await load(url, 'legacy');
      row.modern.push(modern.perSec);
      row.legacy.push(legacy.perSec);
      row.failures += modern.failures + legacy.failures;
    };
    // Rounds interleave the setups, so a busy moment of the shared machine slows them alike.
    for (let round = 0; round < ROUNDS; round++) {
      for (const secret of [undefined, sessionSecret]) {
        const one = await startReplica(folder.dir, secret);
        const label = `direct, 1 replica, ${secret ? 'portable sessions (SVC_SESSION_SECRET)' : 'in-memory sessions'}`;
        await record(label, `http://127.0.0.1:${one.port}/mcp`);
        await stop([one]);
      }
      for (const n of [1, 2, 3]) {
        const replicas = await Promise.all(
          Array.from({ length: n }, () => startReplica(folder.dir, sessionSecret)),
        );
        const haproxy = await startHaproxy(replicas.map((r) => r.port));
        try {
          await record(`haproxy round-robin → ${n} replica${n > 1 ? 's' : ''}`, `${haproxy.origin}/mcp`);
        } finally {
          await haproxy.close();
          await stop(replicas);
        }
      }
    }
    console.log(
      `${WORKERS} SDK clients, ${CALLS} tools/call per row and round, echo upstream; median calls/s of ${ROUNDS} interleaved rounds\n`,
    );
    console.log('| path | 2026-07-28 | 2025-11-25 session | failures |');
    console.log('|---|---:|---:|---:|');
    for (const [label, row] of rows) {
      console.log(
        `| ${label} | ${median(row.modern).toFixed(0)} | ${median(row.legacy).toFixed(0)} | ${row.failures} |`,
      );
    }
    const { reviveUs, knownUs } = await reviveCost(folder.dir);
    console.log(
      `\nportable session, tools/list in-process: first request on a replica that never saw it (rebuilt from the token) ${reviveUs.toFixed(0)} µs, next request ${knownUs.toFixed(0)} µs (median of 300)`,
    );
  } finally {
    await folder.remove();
    await upstream.close();
  }
}
