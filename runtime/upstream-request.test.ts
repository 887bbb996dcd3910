import { describe, expect, it } from 'vitest';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { buildUpstreamRequest } from './upstream-request.js';

const config = {
  schemaVersion: 1,
  server: { id: 's', name: 'S', published: false },
  app: { name: 'S', provider: 'manual' },
  source: { kind: 'manual' },
  auth: { mode: 'none', hasAuthSecret: false },
  apiBaseUrl: 'https://api.example.test/v1/',
  requiredEnv: [],
} as SvcConfig;

function tool(path: string, locations: SvcTool['locations'], extra: Partial<SvcTool> = {}): SvcTool {
  return {
    name: 't',
    description: 'd',
    enabled: true,
    sortOrder: 0,
    origin: 'manual',
    endpoint: { method: 'GET', path },
    classification: 'get',
    inputSchema: { type: 'object' },
    locations,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
    ...extra,
  };
}

function build(t: SvcTool, args: Record<string, unknown>, cfg: SvcConfig = config, secret?: string) {
  return buildUpstreamRequest(t, args, { config: cfg, ...(secret ? { secret } : {}) });
}

describe('buildUpstreamRequest', () => {
  it('joins apiBaseUrl and the endpoint path, encoding path values strictly', () => {
    const r = build(tool('/items/{id}', { id: { in: 'path', name: 'id' } }), { id: "a/b c'*" });
    expect(r).toMatchObject({
      ok: true,
      request: { url: 'https://api.example.test/v1/items/a%2Fb%20c%27%2A' },
    });
  });

  it('serializes path styles: simple arrays/objects, label, matrix', () => {
    const t = (style?: 'label' | 'matrix', explode?: boolean) =>
      tool('/x/{v}', {
        v: { in: 'path', name: 'v', ...(style ? { style } : {}), ...(explode ? { explode } : {}) },
      });
    const url = (r: ReturnType<typeof build>) =>
      r.ok ? r.request.url.replace('https://api.example.test/v1/x/', '') : r;
    expect(url(build(t(), { v: [1, 2] }))).toBe('1,2');
    expect(url(build(t(), { v: { a: 1, b: 2 } }))).toBe('a,1,b,2');
    expect(url(build(t(undefined, true), { v: { a: 1 } }))).toBe('a=1');
    expect(url(build(t('label'), { v: [1, 2] }))).toBe('.1,2');
    expect(url(build(t('matrix'), { v: 5 }))).toBe(';v=5');
    expect(url(build(t('matrix', true), { v: [1, 2] }))).toBe(';v=1;v=2');
  });

  it('refuses ".", "..", empty and missing path values', () => {
    const t = tool('/items/{id}', { id: { in: 'path', name: 'id' } });
    for (const id of ['.', '..', '']) expect(build(t, { id }).ok, id).toBe(false);
    expect(build(t, { id: ['ok', '..'] }).ok).toBe(false);
    const missing = build(t, {});
    expect(missing.ok ? [] : missing.problems).toEqual(['path parameter "id" is required']);
  });

  it('never leaves the base URL whatever the path value', () => {
    const t = tool('/items/{id}', { id: { in: 'path', name: 'id' } });
    for (const id of [
      '//evil.test',
      'http://evil.test',
      '@evil.test',
      '%2e%2e',
      '..%2F..',
      '\\..\\..',
      '?x=1#y',
    ]) {
      const r = build(t, { id });
      if (!r.ok) continue;
      const url = new URL(r.request.url);
      expect(url.origin, id).toBe('https://api.example.test');
      expect(url.pathname.startsWith('/v1/items/'), id).toBe(true);
      expect(url.pathname.split('/').length, id).toBe(4);
      expect(url.search, id).toBe('');
    }
  });

  it('serializes query styles', () => {
    const t = tool('/q', {
      a: { in: 'query', name: 'a' },
      b: { in: 'query', name: 'b', explode: false },
      c: { in: 'query', name: 'c', style: 'spaceDelimited', explode: false },
      d: { in: 'query', name: 'd', style: 'deepObject', explode: true },
      e: { in: 'query', name: 'e' },
    });
    const r = build(t, { a: ['1', '2'], b: ['x', 'y'], c: ['p', 'q'], d: { k: 'v' }, e: { m: 1, n: 2 } });
    expect(r.ok && r.request.url).toBe(
      'https://api.example.test/v1/q?a=1&a=2&b=x%2Cy&c=p%20q&d%5Bk%5D=v&m=1&n=2',
    );
  });

  it('refuses CR/LF in headers and cookies, and reserved header names', () => {
    const t = tool('/h', {
      h: { in: 'header', name: 'X-H' },
      c: { in: 'cookie', name: 'c' },
      host: { in: 'header', name: 'Host' },
    });
    expect(build(t, { h: 'a\r\nb: c' }).ok).toBe(false);
    expect(build(t, { c: 'a\nb' }).ok).toBe(false);
    expect(build(t, { host: 'evil.test' }).ok).toBe(false);
    const ok = build(t, { h: 'v', c: 'x y' });
    expect(ok.ok && ok.request.headers).toMatchObject({ 'x-h': 'v', cookie: 'c=x%20y' });
  });

  it('refuses a header argument with non-ASCII characters, naming the argument', () => {
    const t = tool('/h', { trace: { in: 'header', name: 'X-Trace' } });
    const r = build(t, { trace: 'café' });
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.join()).toMatch(/argument "trace".*"X-Trace".*U\+00E9 at position 4/);
    expect(build(t, { trace: 'tab\tand ~ visible' }).ok).toBe(true);
  });

  it('refuses a header credential an HTTP header cannot carry, without quoting it', () => {
    const t = tool('/h', {});
    const r = build(t, {}, { ...config, auth: { mode: 'bearer', hasAuthSecret: true } }, 'sécret');
    expect(r.ok).toBe(false);
    expect(!r.ok && r.problems.join()).toMatch(/SVC_UPSTREAM_SECRET/);
    expect(JSON.stringify(r)).not.toContain('sécret');
  });

  it('places the credential per auth mode, after the arguments so none can override it', () => {
    const t = tool('/a', { k: { in: 'query', name: 'key' }, auth: { in: 'header', name: 'Authorization' } });
    const bearer = build(
      t,
      { auth: 'Bearer forged' },
      { ...config, auth: { mode: 'bearer', hasAuthSecret: true } },
      'S',
    );
    expect(bearer.ok && bearer.request.headers.authorization).toBe('Bearer S');
    const query = build(
      t,
      { k: 'forged' },
      { ...config, auth: { mode: 'api_key', apiKey: { in: 'query', name: 'key' }, hasAuthSecret: true } },
      'S',
    );
    expect(query.ok && query.request.url).toBe('https://api.example.test/v1/a?key=S');
  });

  it('encodes bodies: json fields, whole, form, text, octet-stream from base64', () => {
    const body = (
      contentType: NonNullable<SvcTool['body']>['contentType'],
      locations: SvcTool['locations'],
      args: object,
      props = {},
    ) =>
      build(
        tool('/b', locations, {
          body: { contentType, required: true },
          inputSchema: { type: 'object', properties: props } as SvcTool['inputSchema'],
        }),
        args as Record<string, unknown>,
      );
    const json = body(
      'application/json',
      { a: { in: 'body', name: 'a' }, b: { in: 'body', name: 'B' } },
      { a: 1, b: [2] },
    );
    expect(json.ok && json.request.body).toBe('{"a":1,"B":[2]}');
    const whole = body('application/json', { p: { in: 'body', name: 'p', whole: true } }, { p: { x: 1 } });
    expect(whole.ok && whole.request.body).toBe('{"x":1}');
    const form = body('application/x-www-form-urlencoded', { a: { in: 'body', name: 'a' } }, { a: 'x y&z' });
    expect(form.ok && form.request.body).toBe('a=x%20y%26z');
    const text = body('text/plain', { t: { in: 'body', name: 't', whole: true } }, { t: 'hi' });
    expect(text.ok && text.request.body).toBe('hi');
    const octet = body(
      'application/octet-stream',
      { f: { in: 'body', name: 'f', whole: true } },
      { f: Buffer.from([1, 2, 255]).toString('base64') },
      { f: { type: 'string', contentEncoding: 'base64' } },
    );
    expect(octet.ok && [...(octet.request.body as Uint8Array)]).toEqual([1, 2, 255]);
    const missing = body('application/json', { a: { in: 'body', name: 'a' } }, {});
    expect(missing.ok).toBe(false);
  });
});
