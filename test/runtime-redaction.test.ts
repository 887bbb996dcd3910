/**
 * No upstream secret leaks into an MCP result, an error or a log line, whatever encoding an
 * echoing upstream writes it in. A real upstream on 127.0.0.1 receives the credential as the
 * runtime sends it (bearer header, api-key header, api-key query) and answers with it encoded
 * one way or another, in a JSON, text, HTML, binary, image or error body, or by echoing its
 * URL and headers. The runtime is booted by startRuntime and driven by the MCP SDK's client.
 * The encoders below are written independently of runtime/redact.ts on purpose.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadFolder } from '../folder/index.js';
import type { FolderModel } from '../folder/model.js';
import { memoryLogger, parseRuntimeEnv, startRuntime } from '../runtime/index.js';
import { type EchoUpstream, PNG_1X1, startEchoUpstream } from '../runtime/testing/index.js';

type AuthMode = 'bearer' | 'header' | 'query';

const utf8 = (s: string) => Buffer.from(s, 'utf8');
const b64 = (s: string | Buffer) => (typeof s === 'string' ? utf8(s) : s).toString('base64');
const pct = (bytes: Buffer, lower: boolean) =>
  [...bytes]
    .map((b) => `%${b.toString(16).padStart(2, '0')}`[lower ? 'toLowerCase' : 'toUpperCase']())
    .join('');
/** RFC 3986: unreserved characters stay, every other byte is escaped. */
const rfc3986 = (s: string, lower = false) =>
  [...s]
    .map((ch) =>
      /^[A-Za-z0-9._~-]$/.test(ch) ? ch : pct(utf8(ch), lower).replace(/%([0-9A-F]{2})/gi, '%$1'),
    )
    .join('');
const codePoints = (s: string) => [...s].map((ch) => ch.codePointAt(0)!);
/** Base64 cut into lines of `width` characters, as MIME (76, CRLF) and PEM (64, LF) write it. */
const wrapLines = (text: string, width: number, eol: string) =>
  (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(eol);
/** UTF-16 big-endian bytes (Node writes only little-endian). */
const utf16be = (s: string) => Buffer.from(s, 'utf16le').swap16();

/** The encodings an upstream may echo the secret in. */
const ENCODINGS: Record<string, (s: string) => string> = {
  raw: (s) => s,
  upper: (s) => s.toUpperCase(),
  lower: (s) => s.toLowerCase(),
  uriComponent: (s) => encodeURIComponent(s),
  rfc3986: (s) => rfc3986(s),
  rfc3986Lower: (s) => rfc3986(s, true),
  percentEveryByte: (s) => pct(utf8(s), true),
  onlySlashEscaped: (s) => s.replace(/\//g, '%2f'),
  form: (s) => new URLSearchParams({ x: s }).toString().slice(2),
  base64: (s) => b64(s),
  base64Url: (s) => utf8(s).toString('base64url'),
  base64BasicUser: (s) => b64(`user:${s}`),
  base64Bearer: (s) => b64(`Bearer ${s}`),
  base64Offset1: (s) => b64(`x${s}`),
  base64Offset2: (s) => b64(`xy${s}`),
  hexLower: (s) => utf8(s).toString('hex'),
  hexUpper: (s) => utf8(s).toString('hex').toUpperCase(),
  htmlNamed: (s) =>
    s.replace(/[&<>"']/g, (c) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[c]};`),
  htmlDecimal: (s) =>
    codePoints(s)
      .map((c) => `&#${c};`)
      .join(''),
  htmlHex: (s) =>
    codePoints(s)
      .map((c) => `&#X${c.toString(16).toUpperCase()};`)
      .join(''),
  htmlSlashOnly: (s) => s.replace(/\//g, '&#47;'),
  jsonString: (s) => JSON.stringify(s).slice(1, -1),
  percentTwice: (s) => encodeURIComponent(rfc3986(s)),
  percentEveryByteTwice: (s) => pct(utf8(pct(utf8(s), false)), false),
  percentSlashTwice: (s) => s.replace(/\//g, '%252F'),
  percentThrice: (s) => encodeURIComponent(encodeURIComponent(encodeURIComponent(s))),
  // Long enough a prefix that the secret's base64 straddles a line break.
  base64Mime: (s) => wrapLines(b64(`${'A'.repeat(52)}${s}`), 76, '\r\n'),
  base64Pem: (s) => wrapLines(b64(`${'A'.repeat(45)}${s}`), 64, '\n'),
  base64PemCrlf: (s) => wrapLines(b64(`${'A'.repeat(47)}user:${s}`), 64, '\r\n'),
  base64UrlOffset1: (s) => utf8(`x${s}`).toString('base64url'),
  base64UrlOffset2: (s) => utf8(`xy${s}`).toString('base64url'),
};

/** Body kinds: how the upstream wraps the encoded secret. Raw JSON texts are written by hand. */
const jsonEscapeAll = (s: string) =>
  Array.from({ length: s.length }, (_, i) => `\\u${s.charCodeAt(i).toString(16).padStart(4, '0')}`).join('');
const jsonEscapeSome = (s: string) =>
  JSON.stringify(s)
    .slice(1, -1)
    .replace(/\//g, '\\/')
    .replace(/[0-9]/g, (d) => `\\u00${d.charCodeAt(0).toString(16)}`);

type Kind = (encoded: string, req: IncomingMessage) => { status: number; type: string; body: Buffer };
const KINDS: Record<string, Kind> = {
  json: (e) => ({ status: 200, type: 'application/json', body: utf8(JSON.stringify({ echo: e, n: 1 })) }),
  jsonAllEscaped: (e) => ({
    status: 200,
    type: 'application/json',
    body: utf8(`{"echo":"${jsonEscapeAll(e)}"}`),
  }),
  jsonSomeEscaped: (e) => ({
    status: 200,
    type: 'application/json',
    body: utf8(`{"echo":"${jsonEscapeSome(e)}"}`),
  }),
  jsonKey: (e) => ({ status: 200, type: 'application/json', body: utf8(`{"${jsonEscapeAll(e)}":true}`) }),
  text: (e) => ({ status: 200, type: 'text/plain', body: utf8(`token is ${e}.`) }),
  html: (e) => ({ status: 200, type: 'text/html', body: utf8(`<p title="${e}">hi</p>`) }),
  binary: (e) => ({
    status: 200,
    type: 'application/octet-stream',
    body: Buffer.concat([Buffer.from([0, 1, 2]), utf8(e), Buffer.from([255])]),
  }),
  image: (e) => ({ status: 200, type: 'image/png', body: Buffer.concat([PNG_1X1, utf8(e)]) }),
  // UTF-16 text: declared (with and without a byte-order mark), or not declared at all.
  textUtf16: (e) => ({
    status: 200,
    type: 'text/plain; charset=utf-16',
    body: Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`token is ${e}.`, 'utf16le')]),
  }),
  textUtf16le: (e) => ({
    status: 200,
    type: 'text/plain; charset=UTF-16LE',
    body: Buffer.from(`token ${e}`, 'utf16le'),
  }),
  textUtf16be: (e) => ({ status: 200, type: 'text/plain; charset="utf-16be"', body: utf16be(`token ${e}`) }),
  jsonUtf16: (e) => ({
    status: 200,
    type: 'application/json; charset=utf-16le',
    body: Buffer.from(JSON.stringify({ echo: e }), 'utf16le'),
  }),
  textUtf16Undeclared: (e) => ({
    status: 200,
    type: 'text/plain',
    body: Buffer.from(`token is ${e}.`, 'utf16le'),
  }),
  binaryUtf16: (e) => ({
    status: 200,
    type: 'application/octet-stream',
    body: Buffer.concat([Buffer.from([0, 1]), Buffer.from(e, 'utf16le'), Buffer.from([9]), utf16be(e)]),
  }),
  binaryUtf16be: (e) => ({
    status: 200,
    type: 'application/octet-stream',
    body: Buffer.concat([Buffer.from([7]), utf16be(e), Buffer.from([9])]),
  }),
  audio: (e) => ({ status: 200, type: 'audio/wav', body: Buffer.concat([utf8('RIFF'), utf8(e)]) }),
  // SVG is XML text, yet it leaves as an image block (base64): it must be searched all the same.
  svg: (e) => ({
    status: 200,
    type: 'image/svg+xml',
    body: utf8(
      `<svg xmlns="http://www.w3.org/2000/svg"><text>${e.replace(/[&<>]/g, (c) => `&#${c.charCodeAt(0)};`)}</text></svg>`,
    ),
  }),
  error500: (e) => ({ status: 500, type: 'application/json', body: utf8(`{"error":"${jsonEscapeAll(e)}"}`) }),
  error400Text: (e) => ({ status: 400, type: 'text/plain', body: utf8(`bad key ${e}`) }),
  // The media type is upstream-controlled too and lands in mimeType and messages.
  typeEcho: (e) => ({
    status: 200,
    type: `application/x-${/^[\x21-\x7e]+$/.test(e) && !/[;,"]/.test(e) ? e : b64(e)}`,
    body: Buffer.from([0, 1, 2]),
  }),
  imageTypeEcho: (e) => ({
    status: 200,
    type: `image/x-${/^[\x21-\x7e]+$/.test(e) && !/[;,"]/.test(e) ? e : b64(e)}`,
    body: PNG_1X1,
  }),
  urlEcho: (_e, req) => ({
    status: 200,
    type: 'application/json',
    body: utf8(JSON.stringify({ url: req.url })),
  }),
  // A pagination cursor or opaque token that encodes the whole request URL or query string.
  urlCursorBase64: (_e, req) => ({
    status: 200,
    type: 'application/json',
    body: utf8(JSON.stringify({ next: b64(req.url ?? '') })),
  }),
  urlCursorBase64Url: (_e, req) => ({
    status: 200,
    type: 'text/plain',
    body: utf8(`next=${utf8(req.url ?? '').toString('base64url')}`),
  }),
  urlCursorHex: (_e, req) => ({
    status: 200,
    type: 'application/json',
    body: utf8(JSON.stringify({ next: utf8(req.url ?? '').toString('hex') })),
  }),
  urlQueryBase64: (_e, req) => ({
    status: 200,
    type: 'application/json',
    body: utf8(JSON.stringify({ q: b64((req.url ?? '').split('?')[1] ?? '') })),
  }),
  // A JWT-style token whose payload is a JSON document holding the (JSON-escaped) secret.
  urlJwt: (_e, req) => {
    const secret = receivedSecret(req, new URL(req.url ?? '/', 'http://x'));
    const segment = (v: unknown) => utf8(JSON.stringify(v)).toString('base64url');
    return {
      status: 200,
      type: 'application/json',
      body: utf8(JSON.stringify({ token: `${segment({ alg: 'none' })}.${segment({ key: secret })}.` })),
    };
  },
  urlEchoError: (_e, req) => ({ status: 404, type: 'text/plain', body: utf8(`no route for ${req.url}`) }),
  headersEcho: (_e, req) => ({
    status: 200,
    type: 'application/json',
    body: utf8(JSON.stringify({ headers: req.headers })),
  }),
  headersEchoError: (_e, req) => ({
    status: 401,
    type: 'application/json',
    body: utf8(JSON.stringify({ headers: req.headers })),
  }),
};

/** The credential as the upstream received it, in whichever place the runtime put it. */
function receivedSecret(req: IncomingMessage, url: URL): string {
  const bearer = /^Bearer (.*)$/s.exec(String(req.headers.authorization ?? ''));
  if (bearer) return bearer[1]!;
  const header = req.headers['x-api-key'];
  if (typeof header === 'string') return Buffer.from(header, 'latin1').toString('utf8');
  return url.searchParams.get('api_key') ?? '';
}

function leakRoute(req: IncomingMessage, res: ServerResponse, _body: Buffer, url: URL): boolean {
  if (url.pathname !== '/api/leak') return false;
  const secret = receivedSecret(req, url);
  const encode = ENCODINGS[url.searchParams.get('enc') ?? 'raw']!;
  const answer = KINDS[url.searchParams.get('kind') ?? 'json']!(encode(secret), req);
  res.writeHead(answer.status, { 'content-type': answer.type, 'x-echo': b64(secret) });
  res.end(answer.body);
  return true;
}

function folderFor(mode: AuthMode, apiBaseUrl: string): FolderModel {
  const auth = {
    bearer: 'auth:\n  mode: bearer\n  hasAuthSecret: true\n',
    header: 'auth:\n  mode: api_key\n  apiKey:\n    in: header\n    name: X-Api-Key\n  hasAuthSecret: true\n',
    query: 'auth:\n  mode: api_key\n  apiKey:\n    in: query\n    name: api_key\n  hasAuthSecret: true\n',
  }[mode];
  const tool = (name: string, output: boolean) =>
    [
      `name: ${name}`,
      'description: Echo the credential back.',
      'enabled: true',
      'sortOrder: 0',
      'origin: manual',
      'endpoint:\n  method: GET\n  path: /leak',
      'classification: action',
      'annotations:\n  readOnlyHint: true\n  destructiveHint: false\n  idempotentHint: true\n  openWorldHint: true',
      'locations:\n  enc: { in: query, name: enc }\n  kind: { in: query, name: kind }',
      'inputSchema:\n  type: object\n  properties:\n    enc: { type: string }\n    kind: { type: string }',
      ...(output ? ['outputSchema:\n  type: object'] : []),
      '',
    ].join('\n');
  const config = [
    'schemaVersion: 1',
    'server:\n  id: leak-api\n  name: Leak API\n  published: false',
    'app:\n  name: Leak\n  provider: manual',
    'source:\n  kind: manual',
    auth.trimEnd(),
    `apiBaseUrl: ${apiBaseUrl}`,
    'requiredEnv:\n  - SVC_UPSTREAM_SECRET',
    '',
  ].join('\n');
  const loaded = loadFolder({
    'config.yaml': config,
    'Tools/leak.yaml': tool('leak', false),
    'Tools/leak_structured.yaml': tool('leak_structured', true),
  });
  if (!loaded.ok) throw new Error(loaded.errors.map((e) => e.describe()).join('\n'));
  return loaded.folder;
}

/** The base64 characters that lie wholly inside the secret, for a secret at byte offset `at`. */
function base64Inside(secret: string, at: number): string {
  const bytes = Buffer.concat([Buffer.alloc(at, 0x41), utf8(secret), Buffer.alloc(3, 0x41)]);
  const text = bytes.toString('base64');
  const from = Math.ceil(at / 3) * 4;
  const to = Math.floor((at + utf8(secret).length) / 3) * 4;
  return text.slice(from, to);
}

function forbidden(secret: string): string[] {
  const forms = Object.values(ENCODINGS).map((encode) => encode(secret));
  for (const at of [0, 1, 2]) forms.push(base64Inside(secret, at));
  forms.push(jsonEscapeAll(secret), jsonEscapeSome(secret));
  return [...new Set(forms)].filter((f) => f.length >= 4);
}

/**
 * Every string a client sees in a result, also with line breaks (wrapped base64) and NULs (UTF-16
 * read as UTF-8) taken out, plus the decoded bytes of any base64 blob, read as bytes, UTF-8 and UTF-16.
 */
function visibleStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') {
    out.push(value, value.replace(/\r?\n/g, ''), value.replace(/\0/g, ''));
    // What a client could decode: each run of base64/base64url or hex characters, read from its start.
    for (const run of value.match(/[A-Za-z0-9+/_-]{8,}/g) ?? [])
      out.push(Buffer.from(run, 'base64').toString('latin1'));
    for (const run of value.match(/(?:[0-9a-fA-F]{2}){4,}/g) ?? [])
      out.push(Buffer.from(run, 'hex').toString('latin1'));
  } else if (Array.isArray(value)) for (const item of value) visibleStrings(item, out);
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      out.push(key);
      visibleStrings(item, out);
      if ((key === 'data' || key === 'blob') && typeof item === 'string') {
        const bytes = Buffer.from(item, 'base64');
        out.push(bytes.toString('latin1'), bytes.toString('utf8'));
        for (const at of [0, 1]) {
          const aligned = bytes.subarray(at, at + ((bytes.length - at) & ~1));
          out.push(aligned.toString('utf16le'), Buffer.from(aligned).swap16().toString('utf16le'));
        }
      }
    }
  }
  return out;
}

function expectNoLeak(secret: string, where: string, value: unknown): void {
  const needles = forbidden(secret);
  for (const text of visibleStrings(value)) {
    for (const needle of needles) {
      if (text.includes(needle)) {
        throw new Error(
          `${where} leaks the secret as ${JSON.stringify(needle)} in ${JSON.stringify(text.slice(0, 300))}`,
        );
      }
    }
  }
}

let upstream: EchoUpstream;
beforeAll(async () => {
  upstream = await startEchoUpstream({ record: false, route: leakRoute });
});
afterAll(async () => {
  await upstream?.close();
});

/**
 * `lines` holds the log lines and the execution log's lines, the latter with arguments and
 * results (SVC_LOG_ARGUMENTS=1), so everything the runtime writes is checked. The execution log
 * lines are checked as parsed JSON, as a reader of the log sees them.
 */
async function withRuntime<T>(
  mode: AuthMode,
  secret: string,
  run: (client: Client, lines: Iterable<unknown>) => Promise<T>,
): Promise<T> {
  const logger = memoryLogger();
  const executed: string[] = [];
  const lines: Iterable<unknown> = {
    [Symbol.iterator]: () => [...logger.lines, ...executed.map((l) => JSON.parse(l))][Symbol.iterator](),
  };
  const runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0', SVC_UPSTREAM_SECRET: secret, SVC_LOG_ARGUMENTS: '1' }),
    folder: folderFor(mode, `${upstream.url}/api`),
    logger,
    executionLogWrite: (line) => executed.push(line),
  });
  const client = new Client({ name: 'redaction-test', version: '1.0.0' });
  try {
    await client.connect(new StreamableHTTPClientTransport(new URL(runtime.url)));
    const out = await run(client, lines);
    // Every call the test made is in the execution log (else it checked nothing).
    expect(executed.length).toBeGreaterThan(0);
    return out;
  } finally {
    await client.close().catch(() => {});
    await runtime.close();
  }
}

async function callAndCheck(client: Client, secret: string, tool: string, enc: string, kind: string) {
  const where = `${tool} enc=${enc} kind=${kind}`;
  let result: unknown;
  try {
    result = await client.callTool({ name: tool, arguments: { enc, kind } });
  } catch (error) {
    result = { thrown: String((error as Error).message) };
  }
  expectNoLeak(secret, where, result);
  return result as { isError?: boolean; content?: { type: string; text?: string }[] };
}

const ISSUE_SECRETS: [AuthMode, string][] = [
  ['bearer', 'S3cr3t/Tok+en=XyZ_9'],
  ['header', 'S3cr3t/Tok+en=XyZ_9'],
  ['query', 'S3cr3t/Tok+en=XyZ_9'],
  ['query', "Ke y!(x)*'z"],
];

describe('the secrets from the issue, every encoding in every body', () => {
  it.each(ISSUE_SECRETS)(
    '%s auth, secret %s',
    async (mode, secret) => {
      await withRuntime(mode, secret, async (client, lines) => {
        // The upstream really receives the credential and echoes it (else nothing is proven).
        const echoed = await client.callTool({ name: 'leak', arguments: { enc: 'hexLower', kind: 'text' } });
        expect(JSON.stringify(echoed)).toContain('[REDACTED]');
        for (const kind of Object.keys(KINDS)) {
          for (const enc of Object.keys(ENCODINGS)) {
            // structuredContent is only ever built from a JSON body.
            for (const tool of kind.startsWith('json') ? ['leak', 'leak_structured'] : ['leak']) {
              if (kind.startsWith('url') || kind.startsWith('headers')) {
                if (enc !== 'raw') continue;
              }
              await callAndCheck(client, secret, tool, enc, kind);
            }
          }
        }
        // A client that sends the secret itself: the execution log's copy of the arguments is redacted.
        await client.callTool({ name: 'leak', arguments: { enc: 'raw', kind: 'urlEcho', note: secret } });
        for (const line of lines) expectNoLeak(secret, 'a log line', line);
      });
    },
    60_000,
  );

  it('withholds a binary or image body that holds the secret, and still returns a clean one', async () => {
    await withRuntime('bearer', 'S3cr3t/Tok+en=XyZ_9', async (client) => {
      const refused = await client.callTool({ name: 'leak', arguments: { enc: 'raw', kind: 'image' } });
      expect(refused.isError).toBe(true);
      expect(JSON.stringify(refused)).toMatch(/withheld/);
      expect(JSON.stringify(refused)).not.toContain('"data"');
      const clean = await client.callTool({ name: 'leak', arguments: { enc: 'raw', kind: 'urlEcho' } });
      expect(clean.isError).toBeFalsy();
    });
  });
});

describe('encodings of the request URL and of JSON holding the secret (issue 16)', () => {
  // Secrets whose query-string and JSON spellings differ from the raw one.
  const SECRETS: [AuthMode, string][] = [
    ['query', 'S3cr3t/Tok+en=XyZ_9'],
    ['query', 'pa"ss\\w0rd/K3y!'],
    ['bearer', 'pa"ss\\w0rd/K3y!'],
    ['header', 'Qx"9\\zz+Tok=abc'],
  ];
  it.each(SECRETS)(
    '%s auth, secret %s: cursors and token segments come back redacted',
    async (mode, secret) => {
      await withRuntime(mode, secret, async (client, lines) => {
        for (const kind of [
          'urlCursorBase64',
          'urlCursorBase64Url',
          'urlCursorHex',
          'urlQueryBase64',
          'urlJwt',
        ]) {
          for (const tool of ['leak', 'leak_structured']) {
            const result = await callAndCheck(client, secret, tool, 'raw', kind);
            if (mode === 'query' || kind === 'urlJwt')
              expect(JSON.stringify(result), kind).toContain('[REDACTED]');
          }
        }
        for (const line of lines) expectNoLeak(secret, 'a log line', line);
      });
    },
  );

  it('withholds an SVG image that holds the secret, in any encoding, and passes a clean one', async () => {
    await withRuntime('bearer', 'S3cr3t/Tok+en=XyZ_9', async (client) => {
      for (const enc of ['raw', 'htmlDecimal', 'base64']) {
        const refused = await client.callTool({ name: 'leak', arguments: { enc, kind: 'svg' } });
        expect(refused.isError, enc).toBe(true);
        expect(JSON.stringify(refused)).toMatch(/withheld/);
        expect(JSON.stringify(refused)).not.toContain('"data"');
      }
    });
  });
});

describe('UTF-16 text bodies', () => {
  it('are read in the charset they declare, then redacted as the client reads them', async () => {
    await withRuntime('bearer', 'S3cr3t/Tok+en=XyZ_9', async (client) => {
      for (const kind of ['textUtf16', 'textUtf16le', 'textUtf16be']) {
        const result = await client.callTool({ name: 'leak', arguments: { enc: 'raw', kind } });
        const text = (result.content as { text: string }[])[0]?.text;
        expect(text, kind).toMatch(/^token (is )?\[REDACTED\]\.?$/);
      }
      const json = await client.callTool({
        name: 'leak_structured',
        arguments: { enc: 'raw', kind: 'jsonUtf16' },
      });
      expect(json.structuredContent).toEqual({ echo: '[REDACTED]' });
    });
  });
});

/** Secrets a header can carry (visible ASCII), and any Unicode for the query key. */
const headerSecret = fc
  .string({
    unit: fc.constantFrom(...'abcXYZ019/+=_-.~!*()\'"<>&%:;@ '.split('')),
    minLength: 8,
    maxLength: 24,
  })
  .map((s) => s.trim())
  .filter((s) => s.length >= 8);
const anySecret = fc
  .string({ unit: 'grapheme', minLength: 8, maxLength: 16 })
  .map((s) => s.trim())
  .filter((s) => [...s].length >= 8 && !/[\0-\x1f\x7f]/.test(s));

describe('property: random secrets, random encodings, random bodies', () => {
  it('never leak into a result, an error or a log line', async () => {
    const call = fc.tuple(
      fc.constantFrom(...Object.keys(ENCODINGS)),
      fc.constantFrom(...Object.keys(KINDS)),
      fc.constantFrom('leak', 'leak_structured'),
    );
    const scenario = fc.oneof(
      fc.record({ mode: fc.constantFrom<AuthMode>('bearer', 'header'), secret: headerSecret }),
      fc.record({ mode: fc.constant<AuthMode>('query'), secret: anySecret }),
    );
    await fc.assert(
      fc.asyncProperty(
        scenario,
        fc.array(call, { minLength: 3, maxLength: 8 }),
        async ({ mode, secret }, calls) => {
          await withRuntime(mode, secret, async (client, lines) => {
            for (const [enc, kind, tool] of calls) await callAndCheck(client, secret, tool, enc, kind);
            for (const line of lines) expectNoLeak(secret, 'a log line', line);
          });
        },
      ),
      { numRuns: 30, seed: Number(process.env['FUZZ_SEED'] ?? 20261123) },
    );
  }, 120_000);
});
