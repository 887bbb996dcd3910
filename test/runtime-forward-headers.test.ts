/**
 * config.yaml forwardHeaders (contracts/oauth.md): the listed headers of the MCP HTTP request
 * reach the upstream on every tool call — both eras, on the hot path and through the SDK —
 * and `svc validate` refuses a credential, Host, Mcp-* or hop-by-hop header, naming the field.
 * Real runtime, real upstream on 127.0.0.1, the MCP SDK's client.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import type { Era } from './helpers/mcp-client.js';
import { svc } from './helpers/run-cli.js';

let upstream: EchoUpstream;
let folder: TempFolder;
const runtimes: RunningRuntime[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder(
    'fixtures/runtime/basic',
    `${upstream.url}/api`,
    (yaml) => `${yaml}forwardHeaders:\n  - X-Tenant-Id\n  - X-Trace\n`,
  );
});
afterAll(async () => {
  for (const r of runtimes) await r.close();
  await upstream?.close();
  await folder?.remove();
});

async function connect(url: string, era: Era, headers: Record<string, string>): Promise<Client> {
  const client = new Client(
    { name: 'forward', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

describe.each([
  ['hot path', true],
  ['SDK path', false],
] as const)('forwardHeaders on the %s', (_label, fastPath) => {
  let runtime: RunningRuntime;
  beforeAll(async () => {
    runtime = await startRuntime({
      env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: 'sk-forward-test' }),
      folderDir: folder.dir,
      fastPath,
    });
    runtimes.push(runtime);
  });

  it.each(['modern', 'legacy'] as const)('sends the listed headers upstream (%s era)', async (era) => {
    const tenant = `tenant-${era}-${fastPath}`;
    const client = await connect(runtime.url, era, {
      'X-Tenant-Id': tenant,
      'X-Other': 'not-listed',
      'X-Trace': 'from-request',
    });
    try {
      const before = upstream.requests.length;
      // The model's own X-Trace argument loses to the request's header: the caller picks, not the model.
      const result = await client.callTool({ name: 'echo_get', arguments: { id: '7', trace: 'from-model' } });
      expect(result.isError).toBeFalsy();
      const sent = upstream.requests.slice(before).find((r) => r.path === '/api/echo/items/7');
      expect(sent?.headers['x-tenant-id']).toBe(tenant);
      expect(sent?.headers['x-trace']).toBe('from-request');
      expect(sent?.headers['x-other']).toBeUndefined();
      expect(sent?.headers['x-api-key']).toBe('sk-forward-test');
    } finally {
      await client.close();
    }
  });
});

describe('svc validate refuses headers that can never be forwarded', () => {
  it.each([
    'Authorization',
    'cookie',
    'Host',
    'Mcp-Session-Id',
    'Connection',
    'Transfer-Encoding',
    'X-Api-Key',
  ])('%s', async (header) => {
    const bad = await copyFixtureFolder(
      'fixtures/runtime/basic',
      'http://127.0.0.1:1/api',
      (yaml) => `${yaml}forwardHeaders:\n  - X-Tenant-Id\n  - ${header}\n`,
    );
    try {
      const run = await svc(['validate', bad.dir], { cwd: bad.dir });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('config.yaml');
      expect(run.stderr).toContain('/forwardHeaders/1');
      expect(run.stderr).toContain(`"${header}"`);
    } finally {
      await bad.remove();
    }
  });

  it('accepts an ordinary header', async () => {
    expect((await svc(['validate', folder.dir], { cwd: folder.dir })).code).toBe(0);
  });
});
