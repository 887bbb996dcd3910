/**
 * Origin validation (spec 5.5) and the DNS-rebinding Host check, over real HTTP with raw
 * headers — including garbage an attacker could send. No request may crash the runtime.
 */
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

let upstream: EchoUpstream;
let folder: TempFolder;
const runtimes: RunningRuntime[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  await upstream?.close();
  await folder?.remove();
});

async function boot(vars: Record<string, string>) {
  const logger = memoryLogger();
  const runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'k', ...vars }),
    folderDir: folder.dir,
    logger,
  });
  runtimes.push(runtime);
  return { runtime, logger };
}

const INIT = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

function post(port: number, headers: Record<string, string>, path = '/mcp'): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(INIT);
  });
}

describe('origin rules', () => {
  it('MCP_ALLOWED_ORIGINS unset: every origin accepted, warning at boot; Host still checked on loopback', async () => {
    const { runtime, logger } = await boot({});
    const port = runtime.port;
    expect(logger.records.find((r) => r.event === 'origins_unrestricted')?.level).toBe('warn');
    expect(await post(port, {})).toBe(200);
    expect(await post(port, { origin: 'https://anything.example' })).toBe(200);
    // DNS rebinding: attacker's name resolving to 127.0.0.1.
    expect(
      await post(port, { host: `evil.example.com:${port}`, origin: `http://evil.example.com:${port}` }),
    ).toBe(403);
    expect(await post(port, { host: `localhost:${port}` })).toBe(200);
  });

  it('MCP_ALLOWED_ORIGINS set: listed and same-origin allowed, others 403, no Origin allowed', async () => {
    const { runtime, logger } = await boot({
      MCP_ALLOWED_ORIGINS: 'https://app.example.test, http://localhost:5173',
      MCP_RUNTIME_PUBLIC_URL: 'https://mcp.example.test/',
    });
    const port = runtime.port;
    expect(logger.records.some((r) => r.event === 'origins_unrestricted')).toBe(false);
    expect(await post(port, {})).toBe(200);
    expect(await post(port, { origin: 'https://app.example.test' })).toBe(200);
    expect(await post(port, { origin: 'http://localhost:5173' })).toBe(200);
    expect(await post(port, { origin: `http://localhost:${port}` })).toBe(200);
    expect(await post(port, { origin: 'https://mcp.example.test', host: 'mcp.example.test' })).toBe(200);
    expect(await post(port, { origin: 'https://evil.example.test' })).toBe(403);
    expect(await post(port, { origin: 'https://app.example.test.evil.example' })).toBe(403);
    // Same-origin is never judged by the Host header.
    expect(await post(port, { origin: 'http://localhost:1', host: 'localhost:1' })).toBe(403);
  });

  it('survives malformed and hostile headers without crashing', async () => {
    const { runtime } = await boot({ MCP_ALLOWED_ORIGINS: 'https://app.example.test' });
    const port = runtime.port;
    const hostile: Record<string, string>[] = [
      { origin: 'null' },
      { origin: 'not a url' },
      { origin: '%%%' },
      { origin: 'javascript:alert(1)' },
      { origin: `http://${'a'.repeat(5000)}.example` },
      { origin: 'https://app.example.test/path' },
      { host: '' },
      { host: 'user@localhost' },
      { host: '[::1' },
    ];
    for (const headers of hostile) {
      const status = await post(port, headers);
      expect([200, 400, 403], JSON.stringify(headers).slice(0, 80)).toContain(status);
    }
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    expect(health.status).toBe(200);
    expect(await post(port, { origin: 'https://app.example.test' })).toBe(200);
  });

  it('answers CORS preflight for an allowed origin only', async () => {
    const { runtime } = await boot({ MCP_ALLOWED_ORIGINS: 'https://app.example.test' });
    const ok = await fetch(runtime.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://app.example.test' },
    });
    expect(ok.status).toBe(204);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://app.example.test');
    expect(ok.headers.get('access-control-expose-headers')).toContain('mcp-session-id');
    const refused = await fetch(runtime.url, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example.test' },
    });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  });
});
