/**
 * Boot, auth modes, reloads and shutdown of startRuntime, from folders on disk: every auth
 * mode arrives upstream as configured; a folder that is invalid or lacks its secret refuses to
 * boot with an error naming the file and field or the variable; the legacy bundle still boots;
 * --watch swaps in valid changes and keeps the last good config otherwise; close() lets an
 * in-flight call finish.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSvcError, type SvcError } from '../core/svc-error.js';
import { readFolder } from '../folder/index.js';
import { memoryLogger, parseRuntimeEnv, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

const SECRET = 'tok-boot-77aa88bb99cc';
const FIXTURE = 'fixtures/runtime/basic';
let upstream: EchoUpstream;
const cleanup: (() => Promise<void>)[] = [];

beforeAll(async () => {
  upstream = await startEchoUpstream();
});
afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn();
  await upstream?.close();
});

async function folderWith(edit?: (config: string) => string): Promise<TempFolder> {
  const folder = await copyFixtureFolder(FIXTURE, `${upstream.url}/api`, edit);
  cleanup.push(() => folder.remove());
  return folder;
}

async function boot(dir: string | undefined, vars: Record<string, string> = {}, extra = {}) {
  const logger = memoryLogger();
  const runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', ...vars }),
    ...(dir ? { folderDir: dir } : {}),
    logger,
    ...extra,
  });
  cleanup.push(() => runtime.close());
  return { runtime, logger };
}

async function bootError(dir: string | undefined, vars: Record<string, string> = {}): Promise<SvcError> {
  try {
    await boot(dir, vars);
  } catch (error) {
    if (isSvcError(error)) return error;
    throw error;
  }
  throw new Error('boot did not fail');
}

async function client(url: string): Promise<Client> {
  const c = await connectClient(url, 'boot', 'modern');
  cleanup.push(() => c.close());
  return c;
}

function text(result: { content?: unknown }): string {
  return ((result.content ?? []) as { text?: string }[]).map((c) => c.text ?? '').join('');
}

const API_KEY_HEADER = (c: string) => c;
const API_KEY_QUERY = (c: string) =>
  c.replace('in: header', 'in: query').replace('name: X-Api-Key', 'name: api_key');
const BEARER = (c: string) =>
  c.replace(/ {2}mode: api_key\n {2}apiKey:\n {4}in: header\n {4}name: X-Api-Key\n/, '  mode: bearer\n');
const NONE = (c: string) =>
  c
    .replace(/ {2}mode: api_key\n {2}apiKey:\n {4}in: header\n {4}name: X-Api-Key\n/, '  mode: none\n')
    .replace('hasAuthSecret: true', 'hasAuthSecret: false')
    .replace('requiredEnv:\n  - SVC_UPSTREAM_SECRET', 'requiredEnv: []');
const OAUTH = (c: string) =>
  NONE(c).replace('  mode: none\n', '  mode: user_oauth\n') +
  'oauth:\n  authorizeUrl: https://idp.example.test/authorize\n  tokenUrl: https://idp.example.test/token\n  scopes: [read]\n';

describe('auth modes arrive upstream as configured', () => {
  it('api_key in a header', async () => {
    const { runtime } = await boot((await folderWith(API_KEY_HEADER)).dir, { SVC_UPSTREAM_SECRET: SECRET });
    await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '1' } });
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers['x-api-key']).toBe(SECRET);
    expect(seen.headers.authorization).toBeUndefined();
  });

  it('api_key in the query, replacing any argument of that name', async () => {
    const { runtime } = await boot((await folderWith(API_KEY_QUERY)).dir, { SVC_UPSTREAM_SECRET: SECRET });
    await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '2' } });
    const seen = upstream.requests.at(-1)!;
    expect(seen.query).toEqual([['api_key', SECRET]]);
    expect(seen.headers['x-api-key']).toBeUndefined();
  });

  it('bearer as Authorization: Bearer, which no argument can override', async () => {
    const { runtime } = await boot((await folderWith(BEARER)).dir, { SVC_UPSTREAM_SECRET: SECRET });
    const c = await client(runtime.url);
    await c.callTool({ name: 'echo_get', arguments: { id: '3', trace: 't' } });
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
  });

  it('none sends no credential', async () => {
    const { runtime } = await boot((await folderWith(NONE)).dir, {});
    await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '4' } });
    const seen = upstream.requests.at(-1)!;
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers['x-api-key']).toBeUndefined();
  });

  it('user_oauth without an oauth block refuses every call, saying why, even with the facade configured', async () => {
    const noBlock = (c: string) => NONE(c).replace('  mode: none\n', '  mode: user_oauth\n');
    const { runtime, logger } = await boot((await folderWith(noBlock)).dir, {
      SVC_OAUTH_KEY: Buffer.alloc(32, 3).toString('base64'),
      SVC_OAUTH_CLIENT_ID: 'client',
      MCP_RUNTIME_PUBLIC_URL: 'http://127.0.0.1:1',
    });
    expect(String(logger.records.find((r) => r.event === 'user_oauth_unconfigured')?.message)).toMatch(
      /without an oauth block/,
    );
    const before = upstream.requests.length;
    const result = await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '5' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no oauth block/);
    expect(upstream.requests.length).toBe(before);
  });

  it('user_oauth without SVC_OAUTH_KEY warns at boot and refuses every call without calling upstream', async () => {
    const { runtime, logger } = await boot((await folderWith(OAUTH)).dir, {});
    const warning = logger.records.find((r) => r.event === 'user_oauth_unconfigured');
    expect(warning?.level).toBe('warn');
    expect(String(warning?.message)).toMatch(/SVC_OAUTH_KEY/);
    const before = upstream.requests.length;
    const result = await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '5' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(/no user authorization/);
    expect(upstream.requests.length).toBe(before);
  });
});

describe('a very short upstream secret', () => {
  it('warns at boot, saying redaction then hits ordinary text, and still never returns the secret', async () => {
    const { runtime, logger } = await boot((await folderWith(API_KEY_HEADER)).dir, {
      SVC_UPSTREAM_SECRET: 'Qz7',
    });
    const warning = logger.records.find((r) => r.event === 'short_secret');
    expect(warning?.level).toBe('warn');
    expect(String(warning?.message)).toMatch(/shorter than 8 characters.*inside words too/);
    const result = await (await client(runtime.url)).callTool({
      name: 'echo_get',
      arguments: { id: 'aqz7b', trace: 'QZ7' },
    });
    expect(text(result)).not.toMatch(/qz7/i);
    expect(text(result)).toContain('a[REDACTED]b');
  });

  it('does not warn from 8 characters on', async () => {
    const { logger } = await boot((await folderWith(API_KEY_HEADER)).dir, {
      SVC_UPSTREAM_SECRET: 'Qz7Qz7Qz',
    });
    expect(logger.records.some((r) => r.event === 'short_secret')).toBe(false);
  });
});

describe('upstream through an injected fetch (the alternative transport)', () => {
  it('sends, caps, times out and redacts like the built-in client', async () => {
    const { runtime } = await boot(
      (await folderWith(BEARER)).dir,
      { SVC_UPSTREAM_SECRET: SECRET, SVC_UPSTREAM_TIMEOUT_MS: '1000', SVC_MAX_RESPONSE_BYTES: '2048' },
      { fetch: globalThis.fetch },
    );
    const c = await client(runtime.url);
    const ok = await c.callTool({ name: 'echo_json', arguments: { name: 'via fetch' } });
    expect(JSON.parse(text(ok)).body).toBe('{"name":"via fetch"}');
    expect(upstream.requests.at(-1)!.headers.authorization).toBe(`Bearer ${SECRET}`);
    const upload = await c.callTool({
      name: 'echo_multipart',
      arguments: { file: Buffer.from('f').toString('base64') },
    });
    expect(JSON.parse(text(upload)).contentType).toMatch(/^multipart\/form-data; boundary=/);
    const echoed = await c.callTool({ name: 'status', arguments: { code: 401 } });
    expect(text(echoed)).toMatch(/HTTP 401/);
    expect(text(echoed)).not.toContain(SECRET);
    expect(text(await c.callTool({ name: 'big', arguments: { bytes: 5000 } }))).toMatch(/2048-byte limit/);
    expect(text(await c.callTool({ name: 'slow', arguments: { ms: 4000 } }))).toMatch(/within 1000 ms/);
  });

  it('reports an unreachable upstream as a clear tool error', async () => {
    const folder = await copyFixtureFolder(FIXTURE, 'http://127.0.0.1:9/api', NONE);
    cleanup.push(() => folder.remove());
    const { runtime } = await boot(folder.dir);
    const result = await (await client(runtime.url)).callTool({ name: 'echo_get', arguments: { id: '1' } });
    expect(result.isError).toBe(true);
    expect(text(result)).toMatch(
      /Upstream request failed \(ECONNREFUSED\): could not reach http:\/\/127\.0\.0\.1:9/,
    );
  });
});

describe('boot refusals', () => {
  it('a folder that needs SVC_UPSTREAM_SECRET refuses to boot without it, naming the variable', async () => {
    const error = await bootError((await folderWith()).dir, {});
    expect(error.code).toBe('CONFIG_MISSING_ENV');
    expect(error.place.field).toBe('SVC_UPSTREAM_SECRET');
    expect(error.message).toContain('SVC_UPSTREAM_SECRET');
  });

  it('an invalid tool file refuses to boot, naming the file, field and line', async () => {
    const folder = await folderWith();
    const file = join(folder.dir, 'Tools/echo_json.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('enabled: true', 'enabled: "yes"'));
    const error = await bootError(folder.dir, { SVC_UPSTREAM_SECRET: SECRET });
    expect(error.code).toBe('FOLDER_INVALID');
    expect(error.place.file).toBe('Tools/echo_json.yaml');
    expect(error.place.field).toBe('/enabled');
    expect(error.place.line).toBe(3);
    expect(error.describe()).toContain('Tools/echo_json.yaml');
  });

  it('no folder at all names SVC_FOLDER_PATH', async () => {
    const error = await bootError(undefined, {});
    expect(error.code).toBe('CONFIG_MISSING_ENV');
    expect(error.place.field).toBe('SVC_FOLDER_PATH');
  });

  it('a port in use is a clear error naming MCP_RUNTIME_PORT', async () => {
    const error = await bootError((await folderWith(NONE)).dir, { MCP_RUNTIME_PORT: String(upstream.port) });
    expect(error.place.field).toBe('MCP_RUNTIME_PORT');
  });
});

describe('legacy bundle (SVC_BUNDLE_PATH)', () => {
  it('boots from {server, files} with a deprecation warning', async () => {
    const folder = await folderWith(NONE);
    const files = await readFolder(folder.dir);
    const { parse } = await import('yaml');
    const server = parse(files['config.yaml']!);
    delete files['config.yaml'];
    const bundlePath = join(folder.dir, 'svc.bundle.json');
    await writeFile(bundlePath, JSON.stringify({ server, files }));
    const { runtime, logger } = await boot(undefined, { SVC_BUNDLE_PATH: bundlePath });
    expect(logger.records.find((r) => r.event === 'bundle_deprecated')?.level).toBe('warn');
    const { tools } = await (await client(runtime.url)).listTools();
    expect(tools.map((t) => t.name)).toContain('echo_get');
  });

  it('an invalid bundle names the file', async () => {
    const folder = await folderWith(NONE);
    const bundlePath = join(folder.dir, 'bad.bundle.json');
    await writeFile(bundlePath, JSON.stringify({ files: {} }));
    const error = await bootError(undefined, { SVC_BUNDLE_PATH: bundlePath });
    expect(error.code).toBe('FOLDER_INVALID');
    expect(error.place.file).toBe(bundlePath);
  });
});

describe('health, watch and shutdown', () => {
  it('/healthz and /readyz answer', async () => {
    const { runtime } = await boot((await folderWith(NONE)).dir);
    const base = runtime.url.replace(/\/mcp$/, '');
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ status: 'ok' });
    const ready = await (await fetch(`${base}/readyz`)).json();
    expect(ready).toMatchObject({ status: 'ready', serverId: 'echo-api', configVersion: 1 });
  });

  it('--watch swaps in a valid change and keeps the last good config on an invalid one', async () => {
    const folder = await folderWith(NONE);
    const { runtime, logger } = await boot(folder.dir, {}, { watch: true, watchDebounceMs: 50 });
    const c = await client(runtime.url);
    expect((await c.listTools()).tools.map((t) => t.name)).not.toContain('hidden_delete');
    const file = join(folder.dir, 'Tools/hidden.yaml');
    const original = await readFile(file, 'utf8');
    await writeFile(file, original.replace('enabled: false', 'enabled: true'));
    await expect.poll(() => runtime.store.version(), { timeout: 3000 }).toBe(2);
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('hidden_delete');

    await writeFile(file, original.replace('enabled: false', 'enabled: maybe'));
    await expect
      .poll(() => logger.records.some((r) => r.event === 'config_reload_refused'), { timeout: 3000 })
      .toBe(true);
    expect(runtime.store.version()).toBe(2);
    const refused = logger.records.find((r) => r.event === 'config_reload_refused')!;
    expect(String(refused.message)).toContain('Tools/hidden.yaml');
    expect((await c.listTools()).tools.map((t) => t.name)).toContain('hidden_delete');
  });

  it('close() lets an in-flight call finish, then refuses new connections', async () => {
    const { runtime } = await boot((await folderWith(NONE)).dir);
    const c = await client(runtime.url);
    const before = upstream.requests.length;
    const inFlight = c.callTool({ name: 'slow', arguments: { ms: 300 } });
    // Close only once the call has reached the upstream: it is then truly in flight.
    await expect.poll(() => upstream.requests.slice(before).some((r) => r.path === '/api/slow')).toBe(true);
    const closed = runtime.close();
    const result = await inFlight;
    expect(result.isError).toBeFalsy();
    expect(JSON.parse(text(result))).toEqual({ waited: 300 });
    await closed;
    await expect(fetch(runtime.url.replace(/\/mcp$/, '/healthz'))).rejects.toThrow();
  });
});
