/** Basic auth and base64 file arguments in the upstream request (pure: data in, data out). */
import { describe, expect, it } from 'vitest';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { buildUpstreamRequest } from './upstream-request.js';

const config = (auth: SvcConfig['auth']): SvcConfig => ({
  schemaVersion: 1,
  server: { id: 's', name: 'Default', published: false },
  app: { name: 'S', provider: 'manual' },
  source: { kind: 'manual' },
  auth,
  apiBaseUrl: 'https://api.example.test/v1',
  requiredEnv: [],
});
const none = config({ mode: 'none', hasAuthSecret: false });

function tool(extra: Partial<SvcTool>): SvcTool {
  return {
    name: 't',
    description: 'd',
    enabled: true,
    sortOrder: 0,
    origin: 'manual',
    endpoint: { method: 'POST', path: '/files' },
    classification: 'create',
    inputSchema: { type: 'object' },
    locations: {},
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    ...extra,
  };
}

const file = { type: 'string', format: 'binary', contentEncoding: 'base64' };
const multipart = tool({
  body: { contentType: 'multipart/form-data', required: true },
  inputSchema: { type: 'object', properties: { file, files: { type: 'array', items: file } } },
  locations: { file: { in: 'body', name: 'file' }, files: { in: 'body', name: 'files' } },
});

async function formFile(body: unknown, name: string): Promise<string> {
  const value = (body as FormData).getAll(name)[0] as Blob;
  return Buffer.from(await value.arrayBuffer()).toString('utf8');
}

describe('basic auth', () => {
  const basic = config({ mode: 'basic', hasAuthSecret: true });
  const get = tool({ endpoint: { method: 'GET', path: '/me' } });

  it('sends Authorization: Basic from the user and the secret', () => {
    const r = buildUpstreamRequest(get, {}, { config: basic, secret: 'p@ss:word', user: 'ACcount' });
    expect(r.ok && r.request.headers.authorization).toBe(
      `Basic ${Buffer.from('ACcount:p@ss:word').toString('base64')}`,
    );
  });

  it('takes user:password from the secret alone', () => {
    const r = buildUpstreamRequest(get, {}, { config: basic, secret: 'sk_test_123:' });
    expect(r.ok && r.request.headers.authorization).toBe(
      `Basic ${Buffer.from('sk_test_123:').toString('base64')}`,
    );
  });

  it('overrides an Authorization argument, and sends nothing without a secret', () => {
    const withHeader = tool({
      endpoint: { method: 'GET', path: '/me' },
      locations: { auth: { in: 'header', name: 'Authorization' } },
    });
    const r = buildUpstreamRequest(
      withHeader,
      { auth: 'Basic Zm9vOmJhcg==' },
      { config: basic, secret: 'a:b' },
    );
    expect(r.ok && r.request.headers.authorization).toBe(`Basic ${Buffer.from('a:b').toString('base64')}`);
    const bare = buildUpstreamRequest(get, {}, { config: basic });
    expect(bare.ok && bare.request.headers.authorization).toBeUndefined();
  });
});

describe('base64 file arguments', () => {
  it('decodes valid base64 (standard or URL-safe, with line breaks) into the file bytes', async () => {
    const text = 'hello, file?>';
    const r = buildUpstreamRequest(
      multipart,
      {
        file: Buffer.from(text)
          .toString('base64')
          .replace(/(.{8})/g, '$1\n'),
        files: [Buffer.from(text).toString('base64url')],
      },
      { config: none },
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(await formFile(r.request.body, 'file')).toBe(text);
    expect(await formFile(r.request.body, 'files')).toBe(text);
  });

  it('refuses a value that is not base64, naming the argument', () => {
    const r = buildUpstreamRequest(multipart, { file: 'just some text!' }, { config: none });
    expect(r).toEqual({
      ok: false,
      problems: [
        'argument "file" must be base64-encoded bytes (contentEncoding: base64), and it is not valid base64',
      ],
    });
    const item = buildUpstreamRequest(multipart, { files: ['aGk=', 'abcde'] }, { config: none });
    expect(item.ok ? [] : item.problems).toEqual([
      'argument "files[1]" must be base64-encoded bytes (contentEncoding: base64), and it is not valid base64',
    ]);
  });

  it('checks the fields of a whole multipart body and an octet-stream body', () => {
    const whole = tool({
      body: { contentType: 'multipart/form-data', required: false },
      inputSchema: {
        type: 'object',
        properties: { body: { type: 'object', properties: { file }, required: ['file'] } },
      },
      locations: { body: { in: 'body', name: 'body', whole: true } },
    });
    const r = buildUpstreamRequest(whole, { body: { file: '%%%' } }, { config: none });
    expect(r.ok ? [] : r.problems).toEqual([
      'argument "body.file" must be base64-encoded bytes (contentEncoding: base64), and it is not valid base64',
    ]);
    const raw = tool({
      body: { contentType: 'application/octet-stream', required: true },
      inputSchema: { type: 'object', properties: { body: file } },
      locations: { body: { in: 'body', name: 'body', whole: true } },
    });
    const bad = buildUpstreamRequest(raw, { body: 'plain text, not base64.' }, { config: none });
    expect(bad.ok ? [] : bad.problems).toEqual([
      'argument "body" must be base64-encoded bytes (contentEncoding: base64), and it is not valid base64',
    ]);
    const good = buildUpstreamRequest(raw, { body: 'AAEC' }, { config: none });
    expect(good.ok && [...(good.request.body as Uint8Array)]).toEqual([0, 1, 2]);
  });
});
