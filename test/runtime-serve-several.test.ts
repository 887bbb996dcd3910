/**
 * One `svc serve` for several folders: each folder answers at /mcp/<serverId> on the one port, with its own
 * tools and upstream, through the MCP SDK's client; the bare /mcp and an unknown id say which ids are
 * served; two folders with one server id, or SVC_SYNC_URL, are refused before listening. Each folder's
 * upstream gets that folder's credential only (SVC_UPSTREAM_SECRET_<ID>, or the folder's .env), never
 * another's; the one shared SVC_UPSTREAM_SECRET is refused with several folders. The built CLI
 * (`svc serve a b`, from dist/) is run as a user runs it.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { memoryLogger, parseRuntimeEnv, startRuntimes } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

const SECRET = 'tok-several-0011223344';
let upstream: EchoUpstream;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await upstream?.close();
});

async function folder(id: string, base: string): Promise<TempFolder> {
  const f = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}${base}`, (c) =>
    c.replace(/^ {2}id: echo-api$/m, `  id: ${id}`),
  );
  cleanup.push(() => f.remove());
  return f;
}

const env = (vars: Record<string, string> = {}) =>
  parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: SECRET, ...vars });
/** Several folders: no shared secret; each folder's is named for its server id. */
const perFolder = { SVC_UPSTREAM_SECRET_ALPHA: `${SECRET}-a`, SVC_UPSTREAM_SECRET_BETA: `${SECRET}-b` };
const several = () => parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' });

describe('svc serve with several folders', () => {
  it('serves each folder at /mcp/<serverId>, calls going to its own upstream', async () => {
    const a = await folder('alpha', '/api/a');
    const b = await folder('beta', '/api/b');
    const running = await startRuntimes({
      env: several(),
      vars: perFolder,
      folderDirs: [a.dir, b.dir],
      logger: memoryLogger(),
    });
    cleanup.push(() => running.close());
    expect(running.servers.map((s) => s.serverId)).toEqual(['alpha', 'beta']);
    for (const s of running.servers) {
      expect(s.url).toBe(`http://127.0.0.1:${running.port}/mcp/${s.serverId}`);
      const client = await connectClient(s.url, `c-${s.serverId}`, 'modern');
      cleanup.push(() => client.close());
      const tools = await client.listTools();
      expect(tools.tools.map((t) => t.name)).toContain('echo_get');
      await client.callTool({ name: 'echo_get', arguments: { id: s.serverId } });
      const last = upstream.requests.at(-1)!;
      expect(last.path).toBe(`/api/${s.serverId === 'alpha' ? 'a' : 'b'}/echo/items/${s.serverId}`);
    }
    // A 2025 (legacy) session too, on the second server.
    const legacy = await connectClient(running.servers[1]!.url, 'legacy', 'legacy');
    cleanup.push(() => legacy.close());
    expect((await legacy.listTools()).tools.length).toBeGreaterThan(0);

    const bare = await fetch(`http://127.0.0.1:${running.port}/mcp`, { method: 'POST', body: '{}' });
    expect(bare.status).toBe(404);
    expect(await bare.text()).toContain('use /mcp/<serverId> (alpha, beta)');
    const unknown = await fetch(`http://127.0.0.1:${running.port}/mcp/gamma`, { method: 'POST', body: '{}' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('No MCP server with id \\"gamma\\" here (alpha, beta)');
    expect((await fetch(`http://127.0.0.1:${running.port}/healthz`)).status).toBe(200);
  });

  it('refuses two folders with one server id, and SVC_SYNC_URL', async () => {
    const a = await folder('same', '/api');
    const b = await folder('same', '/api');
    const refused = async (promise: Promise<unknown>) => {
      try {
        await promise;
      } catch (error) {
        if (isSvcError(error)) return error;
        throw error;
      }
      throw new Error('did not refuse');
    };
    const dup = await refused(
      startRuntimes({ env: several(), folderDirs: [a.dir, b.dir], logger: memoryLogger() }),
    );
    expect(dup.message).toContain('have the same server id "same"');
    const sync = await refused(
      startRuntimes({
        env: env({ SVC_SYNC_URL: 'http://127.0.0.1:1', SVC_DEPLOY_TOKEN: 'x'.repeat(40) }),
        folderDirs: [a.dir],
        logger: memoryLogger(),
      }),
    );
    expect(sync.message).toContain('SVC_SYNC_URL follows one server');
  });

  it('svc serve a b (the built CLI) prints one URL per folder and serves both', async () => {
    const a = await folder('cli-a', '/api/a');
    const b = await folder('cli-b', '/api/b');
    // cli-b's credential is in its own .env.
    writeFileSync(join(b.dir, '.env'), `SVC_UPSTREAM_SECRET=${SECRET}-cli-b\n`);
    const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
    const child = spawn(process.execPath, [cli, 'serve', a.dir, b.dir, '--port', '0'], {
      env: {
        PATH: process.env['PATH'] ?? '',
        SVC_UPSTREAM_SECRET_CLI_A: `${SECRET}-cli-a`,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    cleanup.push(async () => {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    });
    let out = '';
    const urls = await new Promise<string[]>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const found = [...out.matchAll(/^MCP server (\S+) listening on (\S+)$/gm)].map((m) => m[2]!);
        if (found.length === 2) resolve(found);
      });
      child.once('exit', (code) => reject(new Error(`svc serve exited ${code}: ${out}`)));
    });
    expect(urls.map((u) => u.replace(/:\d+\//, ':PORT/'))).toEqual([
      'http://127.0.0.1:PORT/mcp/cli-a',
      'http://127.0.0.1:PORT/mcp/cli-b',
    ]);
    for (const url of urls) {
      const client = await connectClient(url, 'cli', 'modern');
      cleanup.push(() => client.close());
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('echo_get');
      const id = url.slice(url.lastIndexOf('/') + 1);
      await client.callTool({ name: 'echo_get', arguments: { id } });
      expect(upstream.requests.at(-1)!.headers['x-api-key']).toBe(`${SECRET}-${id}`);
    }
  });

  it("gives each folder's upstream its own credential, never the other's", async () => {
    const keyA = 'key-for-alpha-only-7f3a9c';
    const keyB = 'key-for-beta-only-2d8e41';
    const other = await startEchoUpstream();
    cleanup.push(() => other.close());
    const a = await folder('alpha', '/api/a');
    const b = await copyFixtureFolder('fixtures/runtime/basic', `${other.url}/api/b`, (c) =>
      c.replace(/^ {2}id: echo-api$/m, '  id: beta'),
    );
    cleanup.push(() => b.remove());
    // alpha's from the environment under its own name; beta's from beta's own .env (svc serve reads it).
    const before = upstream.requests.length;
    const running = await startRuntimes({
      env: several(),
      vars: { SVC_UPSTREAM_SECRET_ALPHA: keyA },
      folderVars: { [b.dir]: { SVC_UPSTREAM_SECRET: keyB } },
      folderDirs: [a.dir, b.dir],
      logger: memoryLogger(),
    });
    cleanup.push(() => running.close());
    for (const s of running.servers) {
      const client = await connectClient(s.url, `k-${s.serverId}`, 'modern');
      cleanup.push(() => client.close());
      await client.callTool({ name: 'echo_get', arguments: { id: s.serverId } });
    }
    const seenA = upstream.requests.slice(before);
    expect(seenA.map((r) => r.headers['x-api-key'])).toEqual([keyA]);
    expect(other.requests.map((r) => r.headers['x-api-key'])).toEqual([keyB]);
    expect(JSON.stringify(seenA)).not.toContain(keyB);
    expect(JSON.stringify(other.requests)).not.toContain(keyA);
  });

  it('refuses the one shared SVC_UPSTREAM_SECRET with several folders, and names a missing per-folder one', async () => {
    const a = await folder('alpha', '/api/a');
    const b = await folder('beta', '/api/b');
    const shared = startRuntimes({ env: env(), folderDirs: [a.dir, b.dir], logger: memoryLogger() });
    await expect(shared).rejects.toMatchObject({
      code: 'USAGE',
      message: expect.stringContaining("SVC_UPSTREAM_SECRET would go to every folder's API"),
    });
    const missing = startRuntimes({
      env: several(),
      vars: { SVC_UPSTREAM_SECRET_ALPHA: SECRET },
      folderDirs: [a.dir, b.dir],
      logger: memoryLogger(),
    });
    await expect(missing).rejects.toMatchObject({
      code: 'CONFIG_MISSING_ENV',
      place: { field: 'SVC_UPSTREAM_SECRET_BETA' },
      message: expect.stringContaining(`SVC_UPSTREAM_SECRET in ${b.dir}/.env`),
    });
  });
});
