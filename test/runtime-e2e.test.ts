/**
 * End to end: the runtime booted by startRuntime from a folder on disk, on an ephemeral port,
 * driven by the MCP SDK's own Client (2026-07-28 stateless and 2025-11-25 sessions), calling
 * a real upstream on 127.0.0.1 that records what it receives.
 */
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryLogger, parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  PNG_1X1,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient, type Era } from './helpers/mcp-client.js';

const SECRET = 'sk-e2e-5f1c2a9b7d3e4f60';
const FIXTURE = 'fixtures/runtime/basic';
type Content = { type: string; text?: string; data?: string; mimeType?: string };

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
const logger = memoryLogger();

beforeAll(async () => {
  upstream = await startEchoUpstream();
  folder = await copyFixtureFolder(FIXTURE, `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: SECRET,
      SVC_UPSTREAM_TIMEOUT_MS: '1500',
      SVC_MAX_RESPONSE_BYTES: '4096',
    }),
    folderDir: folder.dir,
    logger,
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
});

const connect = (url: string, era: Era, name = `test-${era}`) => connectClient(url, name, era);

function text(result: { content?: unknown }): string {
  return ((result.content ?? []) as Content[]).map((c) => c.text ?? '').join('');
}

async function callEcho(client: Client, name: string, args: Record<string, unknown>) {
  const before = upstream.requests.length;
  const result = await client.callTool({ name, arguments: args });
  expect(result.isError, text(result)).toBeFalsy();
  expect(upstream.requests.length).toBe(before + 1);
  return { result, echo: JSON.parse(text(result)), seen: upstream.requests.at(-1)! };
}

describe.each(['modern', 'legacy'] as const)('%s client', (era) => {
  let client: Client;
  beforeAll(async () => {
    client = await connect(runtime.url, era);
  });
  afterAll(async () => {
    await client?.close();
  });

  it('lists only enabled tools, with their raw JSON Schemas and annotations', async () => {
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('echo_get');
    expect(names).not.toContain('hidden_delete');
    const get = tools.find((t) => t.name === 'echo_get')!;
    expect(get.inputSchema.required).toEqual(['id']);
    expect(get.annotations?.openWorldHint).toBe(true);
    const structured = tools.find((t) => t.name === 'structured')!;
    expect(structured.outputSchema?.type).toBe('object');
    expect(structured._meta?.ui).toEqual({ resourceUri: 'ui://echo-api/card.html' });
    expect(structured._meta?.['openai/outputTemplate']).toBe('ui://echo-api/card.html');
  });

  it('refuses a disabled tool and never calls the upstream for it', async () => {
    const before = upstream.requests.length;
    await expect(client.callTool({ name: 'hidden_delete', arguments: {} })).rejects.toThrow(/Unknown tool/);
    await expect(client.callTool({ name: 'no_such_tool', arguments: {} })).rejects.toThrow(/Unknown tool/);
    expect(upstream.requests.length).toBe(before);
  });

  it('validates arguments and lists every problem', async () => {
    const before = upstream.requests.length;
    const result = await client.callTool({ name: 'echo_json', arguments: { name: '', count: -1, extra: 1 } });
    expect(result.isError).toBe(true);
    const message = text(result);
    expect(message).toMatch(/\/name/);
    expect(message).toMatch(/\/count/);
    expect(message).toMatch(/extra/);
    expect(upstream.requests.length).toBe(before);
  });

  it('sends path, query (form, csv, pipes, deepObject), header and cookie parameters', async () => {
    const { seen } = await callEcho(client, 'echo_get', {
      id: 'a b/c?d#e',
      tags: ['x', 'y z'],
      csv: [1, 2, 3],
      pipes: ['p', 'q'],
      filter: { color: 'red', size: 'L' },
      trace: 'trace-1',
      session: 's=1; x',
    });
    expect(seen.path).toBe('/api/echo/items/a%20b%2Fc%3Fd%23e');
    expect(seen.query).toEqual([
      ['tags', 'x'],
      ['tags', 'y z'],
      ['csv', '1,2,3'],
      ['pipes', 'p|q'],
      ['filter[color]', 'red'],
      ['filter[size]', 'L'],
    ]);
    expect(seen.headers['x-trace']).toBe('trace-1');
    expect(seen.headers.cookie).toBe('session=s%3D1%3B%20x');
    expect(seen.headers['x-api-key']).toBe(SECRET);
  });

  it('sends JSON, form, multipart, whole and text bodies', async () => {
    let r = await callEcho(client, 'echo_json', { name: 'n', count: 2, note: 'hi' });
    expect(r.seen.method).toBe('POST');
    expect(JSON.parse(r.seen.body)).toEqual({ name: 'n', count: 2 });
    expect(r.seen.headers['content-type']).toBe('application/json');
    expect(r.seen.query).toEqual([['note', 'hi']]);

    r = await callEcho(client, 'echo_form', { user: 'a&b=c', roles: ['x', 'y'] });
    expect(r.seen.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(r.seen.body).entries()]).toEqual([
      ['user', 'a&b=c'],
      ['roles', 'x'],
      ['roles', 'y'],
    ]);

    r = await callEcho(client, 'echo_multipart', {
      file: Buffer.from('hello file').toString('base64'),
      caption: 'c',
    });
    expect(r.seen.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
    expect(r.seen.body).toContain('name="file"; filename="file"');
    expect(r.seen.body).toContain('hello file');
    expect(r.seen.body).toMatch(/name="caption"\r\n\r\nc\r\n/);

    r = await callEcho(client, 'echo_whole', { payload: [3, 1, 2] });
    expect(r.seen.method).toBe('PUT');
    expect(r.seen.body).toBe('[3,1,2]');

    r = await callEcho(client, 'echo_text', { text: 'plain words' });
    expect(r.seen.headers['content-type']).toBe('text/plain');
    expect(r.seen.body).toBe('plain words');
  });

  it('returns JSON as structuredContent when the tool has an output schema', async () => {
    const result = await client.callTool({ name: 'structured', arguments: { q: 'v' } });
    expect(result.structuredContent).toMatchObject({ method: 'GET', query: [['q', 'v']] });
    expect(JSON.parse(text(result)).method).toBe('GET');
  });

  it('returns images and audio as base64 content', async () => {
    const image = await client.callTool({ name: 'image', arguments: {} });
    expect(image.content).toEqual([
      { type: 'image', mimeType: 'image/png', data: PNG_1X1.toString('base64') },
    ]);
    const audio = await client.callTool({ name: 'audio', arguments: {} });
    expect((audio.content as Content[])[0]).toMatchObject({ type: 'audio', mimeType: 'audio/wav' });
  });

  it('reports non-2xx with status and a redacted excerpt, even when the upstream echoes the secret', async () => {
    const result = await client.callTool({ name: 'status', arguments: { code: 500 } });
    expect(result.isError).toBe(true);
    const message = text(result);
    expect(message).toMatch(/HTTP 500/);
    expect(message).toContain('[REDACTED]');
    expect(JSON.stringify(result)).not.toContain(SECRET);
  });

  it('turns timeouts, oversized responses and refused redirects into clear tool errors', async () => {
    const slow = await client.callTool({ name: 'slow', arguments: { ms: 5000 } });
    expect(slow.isError).toBe(true);
    expect(text(slow)).toMatch(/did not answer within 1500 ms/);
    const big = await client.callTool({ name: 'big', arguments: { bytes: 10_000 } });
    expect(big.isError).toBe(true);
    expect(text(big)).toMatch(/exceeds the 4096-byte limit/);
    const before = upstream.requests.length;
    const away = await client.callTool({
      name: 'redirect',
      arguments: { to: 'http://evil.example.test/steal' },
    });
    expect(away.isError).toBe(true);
    expect(text(away)).toMatch(/HTTP 302/);
    expect(upstream.requests.length).toBe(before + 1);
    const same = await client.callTool({ name: 'redirect', arguments: { to: '/api/echo/redirected' } });
    expect(JSON.parse(text(same)).path).toBe('/api/echo/redirected');
  });

  it('never lets an argument change the upstream origin or path prefix', async () => {
    const attempts: Record<string, unknown>[] = [
      { id: '..' },
      { id: '.' },
      { id: '' },
      { id: '../../admin' },
      { id: '//evil.example.test' },
      { id: 'http://evil.example.test/x' },
      { id: '%2e%2e' },
      { id: '..%2f..%2fadmin' },
      { id: 'ok', trace: 'a\r\nX-Injected: 1' },
      { id: 'ok', session: 'a\nb' },
    ];
    for (const args of attempts) {
      const before = upstream.requests.length;
      const result = await client.callTool({ name: 'echo_get', arguments: args });
      if (result.isError) {
        expect(upstream.requests.length, JSON.stringify(args)).toBe(before);
        continue;
      }
      const seen = upstream.requests.at(-1)!;
      expect(seen.path.startsWith('/api/echo/items/'), seen.path).toBe(true);
      expect(seen.path.split('/').length, seen.path).toBe(5);
      expect(seen.headers['x-injected']).toBeUndefined();
    }
  });

  it('serves prompts with arguments and embedded resources', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['greet']);
    expect(prompts[0]!.arguments).toEqual([
      { name: 'name', description: 'Who to greet', required: true },
      { name: 'tone', required: false },
    ]);
    const got = await client.getPrompt({ name: 'greet', arguments: { name: 'Ada', tone: 'warm' } });
    expect(got.messages.at(-1)!.content).toEqual({ type: 'text', text: 'Say hello to Ada in a warm tone.' });
    expect(got.messages[0]!.content).toMatchObject({ type: 'resource', resource: { uri: 'docs://guide' } });
    await expect(client.getPrompt({ name: 'greet', arguments: {} })).rejects.toThrow(/name/);
    await expect(client.getPrompt({ name: 'secret-plan' })).rejects.toThrow(/Unknown prompt/);
  });

  it('serves resources, templates, docs, skills and widgets — enabled ones only', async () => {
    const { resources } = await client.listResources();
    const uris = resources.map((r) => r.uri).sort();
    expect(uris).toEqual(
      [
        'docs://guide',
        'docs://nested/deep',
        'resource://readme',
        'skill://search/SKILL.md',
        'ui://echo-api/card.html',
      ].sort(),
    );
    const { resourceTemplates } = await client.listResourceTemplates();
    expect(resourceTemplates).toEqual([
      expect.objectContaining({
        uriTemplate: 'data://items/{id}',
        name: 'item',
        mimeType: 'application/json',
      }),
    ]);
    const item = await client.readResource({ uri: 'data://items/42' });
    expect(JSON.parse((item.contents[0] as { text: string }).text)).toEqual({ id: '42', kind: 'item' });
    const doc = await client.readResource({ uri: 'docs://nested/deep' });
    expect(doc.contents[0]).toMatchObject({ mimeType: 'text/markdown', text: 'Deep content.\n' });
    expect(resources.find((r) => r.uri === 'docs://nested/deep')?.title).toBe('Deep page');
    const skill = await client.readResource({ uri: 'skill://search/SKILL.md' });
    const skillText = (skill.contents[0] as { text: string }).text;
    expect(skillText).toMatch(/^---\nname: "search"\ndescription: "Search items with echo_get."\n---\n/);
    expect(skillText).toContain('- docs://guide');
    const widget = await client.readResource({ uri: 'ui://echo-api/card.html' });
    const w = widget.contents[0] as { mimeType: string; text: string; _meta: Record<string, unknown> };
    expect(w.mimeType).toBe('text/html;profile=mcp-app');
    expect(w.text).toContain('<div id="card">');
    expect(w._meta.ui).toEqual({
      csp: { connectDomains: ['https://api.example.test'], resourceDomains: ['https://cdn.example.test'] },
      prefersBorder: true,
    });
    expect(w._meta['openai/widgetCSP']).toEqual({
      connect_domains: ['https://api.example.test'],
      resource_domains: ['https://cdn.example.test'],
    });
    expect(w._meta['openai/widgetDescription']).toBe('Shows one item as a card.');
    await expect(client.readResource({ uri: 'resource://hidden' })).rejects.toThrow();
  });
});

describe('16 concurrent clients', () => {
  it.each(['modern', 'legacy'] as const)('%s: every answer belongs to its caller', async (era) => {
    const clients = await Promise.all(
      Array.from({ length: 16 }, (_, i) => connect(runtime.url, era, `c${i}`)),
    );
    try {
      const rounds = 5;
      const results = await Promise.all(
        clients.map(async (client, i) => {
          let wrong = 0;
          for (let r = 0; r < rounds; r++) {
            const id = `client-${i}-call-${r}-${Math.random().toString(36).slice(2)}`;
            const result = await client.callTool({ name: 'echo_get', arguments: { id } });
            if (JSON.parse(text(result)).path !== `/api/echo/items/${id}`) wrong++;
          }
          return wrong;
        }),
      );
      expect(results.reduce((a, b) => a + b, 0)).toBe(0);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
    }
  });
});

describe('hot path', () => {
  it('served the tools/call and tools/list above (both eras), not the SDK per-request path', () => {
    expect(runtime.hotPathServed()).toBeGreaterThan(50);
  });
});

describe('logs', () => {
  it('are JSON lines that never contain the secret', () => {
    expect(logger.lines.length).toBeGreaterThan(0);
    for (const line of logger.lines) expect(line).not.toContain(SECRET);
    expect(logger.records.some((r) => r.event === 'runtime_started')).toBe(true);
    expect(logger.records.some((r) => r.event === 'origins_unrestricted')).toBe(true);
  });
});
