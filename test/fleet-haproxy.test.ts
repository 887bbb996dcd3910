/**
 * A fleet as operators run one (contracts/fleet.md, docs/fleet.md): Debian's haproxy,
 * round-robin, in front of three runtime replicas, each its own process (runtime/main.ts bundled
 * as the container runs it) sharing SVC_SESSION_SECRET. The MCP SDK's own client, in both eras,
 * makes hundreds of calls through it with no failure and no second initialize, while one replica
 * is killed (SIGKILL) mid-run: haproxy's /readyz checks take it out, and the sessions it served
 * carry on on the others.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { bundleEntry } from './helpers/bundle-entry.js';
import { type Haproxy, haproxyBinary, startHaproxy } from '../runtime/testing/haproxy.js';

const UPSTREAM_SECRET = 'sk-fleet-haproxy-5e6f7a8b';
const SESSION_SECRET = randomBytes(32).toString('base64');

interface Replica {
  child: ChildProcess;
  port: number;
  lines: string[];
  exit: Promise<void>;
}

let dir: string;
let entry: string;
let upstream: EchoUpstream;
let folder: TempFolder;
let replicas: Replica[] = [];
let haproxy: Haproxy | undefined;

async function startReplica(env: Record<string, string>): Promise<Replica> {
  const child = spawn(process.execPath, [entry], {
    env: { PATH: process.env.PATH ?? '', MCP_RUNTIME_PORT: '0', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const lines: string[] = [];
  child.stderr!.on('data', (d: Buffer) => lines.push(...d.toString().split('\n').filter(Boolean)));
  const exit = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const started = await new Promise<{ mcp: string }>((resolve, reject) => {
    const look = () => {
      const line = lines.find((l) => l.includes('"event":"runtime_started"'));
      if (line) resolve(JSON.parse(line));
      else if (child.exitCode !== null) reject(new Error(`the replica exited: ${lines.join('\n')}`));
      else child.stderr!.once('data', () => setImmediate(look));
    };
    look();
  });
  const port = Number(new URL(started.mcp).port);
  return { child, port, lines, exit };
}

function events(replica: Replica, name: string): number {
  return replica.lines.filter((l) => l.includes(`"event":"${name}"`)).length;
}

beforeAll(async () => {
  if (!haproxyBinary())
    throw new Error('haproxy is not installed: apt-get install haproxy (.ci/run does it)');
  dir = await mkdtemp(join(tmpdir(), 'svc-fleet-'));
  entry = join(dir, 'runtime.mjs');
  await bundleEntry('runtime/main.ts', entry);
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  const env = {
    SVC_FOLDER_PATH: folder.dir,
    SVC_UPSTREAM_SECRET: UPSTREAM_SECRET,
    SVC_SESSION_SECRET: SESSION_SECRET,
  };
  replicas = await Promise.all([0, 1, 2].map(() => startReplica(env)));
  haproxy = await startHaproxy(replicas.map((r) => r.port));
}, 60_000);

afterAll(async () => {
  await haproxy?.close();
  for (const r of replicas)
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
  await Promise.all(replicas.map((r) => r.exit));
  await upstream?.close();
  await folder?.remove();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('haproxy round-robin over three replicas', () => {
  it('serves hundreds of calls in both eras with no failure and no re-initialize, a replica killed mid-run', {
    timeout: 120_000,
  }, async () => {
    const url = new URL(`${haproxy!.origin}/mcp`);
    let initializes = 0;
    const counting: typeof fetch = async (input, init) => {
      if (typeof init?.body === 'string' && init.body.includes('"method":"initialize"')) initializes++;
      return fetch(input, init);
    };
    const eras = ['legacy', 'legacy', 'legacy', 'modern', 'modern', 'modern'] as const;
    const clients = await Promise.all(
      eras.map(async (era, i) => {
        const client = new Client(
          { name: `fleet-${era}-${i}`, version: '1.0.0' },
          era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
        );
        await client.connect(new StreamableHTTPClientTransport(url, { fetch: counting }));
        return client;
      }),
    );
    const CALLS = 60;
    let done = 0;
    const failures: string[] = [];
    let killed: Replica | undefined;
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < CALLS; i++) {
          // A third of the way in, one replica dies without a word.
          if (++done === Math.floor((CALLS * clients.length) / 3) && !killed) {
            killed = replicas[1]!;
            killed.child.kill('SIGKILL');
          }
          try {
            if (i % 5 === 4) {
              const { tools } = await client.listTools();
              if (!tools.some((t) => t.name === 'echo_get'))
                failures.push(`client ${c}: tools/list lost echo_get`);
              continue;
            }
            const result = await client.callTool({ name: 'echo_get', arguments: { id: `c${c}-${i}` } });
            const text = JSON.stringify(result);
            if (result.isError || !text.includes(`c${c}-${i}`))
              failures.push(`client ${c} call ${i}: ${text}`);
            if (text.includes(UPSTREAM_SECRET)) failures.push(`client ${c} call ${i}: the secret leaked`);
          } catch (error) {
            failures.push(`client ${c} call ${i}: ${(error as Error).message}`);
          }
        }
      }),
    );
    expect(failures, haproxy!.lines.join('\n')).toEqual([]);
    expect(done).toBe(CALLS * clients.length);
    // One initialize per 2025-era client, none for 2026 ones: no session was lost and reopened.
    expect(initializes).toBe(3);
    await killed!.exit;
    // haproxy saw it die; the sessions it had served were rebuilt on the others.
    await expect.poll(() => haproxy!.lines.some((l) => /r2 is DOWN/.test(l)), { timeout: 5000 }).toBe(true);
    const survivors = [replicas[0]!, replicas[2]!];
    for (const r of survivors) expect(events(r, 'session_revived') + events(r, 'session_open')).toBe(3);
    await Promise.all(clients.map((c) => c.close()));
  });
});
