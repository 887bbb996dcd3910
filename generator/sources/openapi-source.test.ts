import { createHash } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import { textWithNewline } from '../../core/text-with-newline.js';
import { readOpenApiSource } from './openapi-source.js';

let dir: string;
let server: Server;
let other: Server;
let base: string;
let otherBase: string;
const seenHeaders: Record<string, string | undefined> = {};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-source-'));
  await writeFile(join(dir, 'api.yaml'), 'openapi: 3.0.3\n');
  await writeFile(join(dir, 'big.json'), 'x'.repeat(2048));
  server = createServer((req, res) => {
    seenHeaders.authorization = req.headers.authorization;
    if (req.url === '/spec.json') {
      res.setHeader('content-type', 'application/json');
      res.end('{"openapi":"3.1.0"}');
    } else if (req.url === '/elsewhere') {
      res.statusCode = 307;
      res.setHeader('location', `${otherBase}/spec.json`);
      res.end();
    } else if (req.url === '/loop') {
      res.statusCode = 302;
      res.setHeader('location', '/loop');
      res.end();
    } else if (req.url === '/moved') {
      res.statusCode = 302;
      res.setHeader('location', '/spec.json');
      res.end();
    } else if (req.url === '/stream') {
      // No content-length: the cap must hold while streaming.
      res.write('a'.repeat(1024));
      res.write('b'.repeat(1024));
      res.end('c'.repeat(1024));
    } else if (req.url === '/slow') {
      setTimeout(() => res.end('{}'), 2_000).unref();
    } else if (req.url === '/secret') {
      res.statusCode = 500;
      res.end('boom');
    } else {
      res.statusCode = 404;
      res.end('not here');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  other = createServer((req, res) => {
    seenHeaders.otherAuthorization = req.headers.authorization;
    res.end('{"openapi":"3.0.3"}');
  });
  await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
  otherBase = `http://127.0.0.1:${(other.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  other.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await new Promise((resolve) => other.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

async function failure(promise: Promise<unknown>): Promise<SvcError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SvcError) return error;
    throw error;
  }
  throw new Error('expected a failure');
}

describe('readOpenApiSource: files', () => {
  it('reads a path relative to cwd and reports the absolute origin and size', async () => {
    const source = await readOpenApiSource('api.yaml', { cwd: dir });
    expect(source).toEqual({
      text: 'openapi: 3.0.3\n',
      origin: join(dir, 'api.yaml'),
      bytes: 15,
      sha256: createHash('sha256').update('openapi: 3.0.3\n').digest('hex'),
    });
  });

  it('names a missing file', async () => {
    const error = await failure(readOpenApiSource('nope.yaml', { cwd: dir }));
    expect(error.code).toBe('SOURCE_NOT_FOUND');
    expect(error.message).toContain(join(dir, 'nope.yaml'));
  });

  it('refuses a file over the size limit', async () => {
    const error = await failure(readOpenApiSource('big.json', { cwd: dir, maxBytes: 1000 }));
    expect(error.code).toBe('SOURCE_TOO_LARGE');
  });
});

describe('readOpenApiSource: URLs', () => {
  it('fetches a document, following redirects', async () => {
    const source = await readOpenApiSource(`${base}/moved`, { cwd: dir });
    expect(source.text).toBe('{"openapi":"3.1.0"}');
    expect(source.origin).toBe(`${base}/spec.json`);
    expect(source.bytes).toBe(19);
  });

  it("does not carry the caller's headers across a redirect to another origin", async () => {
    const source = await readOpenApiSource(`${base}/elsewhere`, {
      cwd: dir,
      headers: { authorization: 'Bearer only-for-the-first-host' },
    });
    expect(source.origin).toBe(`${otherBase}/spec.json`);
    expect(seenHeaders.authorization).toBe('Bearer only-for-the-first-host');
    expect(seenHeaders.otherAuthorization).toBeUndefined();
  });

  it('gives up on a redirect loop', async () => {
    const error = await failure(readOpenApiSource(`${base}/loop`, { cwd: dir }));
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.message).toMatch(/redirected more than 5 times/);
  });

  it('names the URL and the HTTP status when the server says no', async () => {
    const error = await failure(readOpenApiSource(`${base}/missing`, { cwd: dir }));
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.message).toContain(`${base}/missing`);
    expect(error.message).toContain('404');
    expect(error.place.url).toBe(`${base}/missing`);
  });

  it('reports a connection that cannot be made', async () => {
    const error = await failure(
      readOpenApiSource('http://127.0.0.1:1/x.json', { cwd: dir, timeoutMs: 2_000 }),
    );
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.message).toContain('http://127.0.0.1:1/x.json');
  });

  it('caps the size while streaming a body without content-length', async () => {
    const error = await failure(readOpenApiSource(`${base}/stream`, { cwd: dir, maxBytes: 2_000 }));
    expect(error.code).toBe('SOURCE_TOO_LARGE');
  });

  it('times out', async () => {
    const error = await failure(readOpenApiSource(`${base}/slow`, { cwd: dir, timeoutMs: 100 }));
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.message).toMatch(/timed out after 100 ms/);
  });

  it('refuses credentials in the URL without repeating them', async () => {
    const error = await failure(
      readOpenApiSource(`http://alice:hunter2@127.0.0.1:9/spec.json`, { cwd: dir }),
    );
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.describe()).not.toContain('hunter2');
    expect(error.describe()).not.toContain('alice');
  });

  it('sends the given headers and never echoes their values', async () => {
    const error = await failure(
      readOpenApiSource(`${base}/secret`, { cwd: dir, headers: { authorization: 'Bearer s3cr3t-token' } }),
    );
    expect(seenHeaders.authorization).toBe('Bearer s3cr3t-token');
    expect(JSON.stringify(error.toJSON())).not.toContain('s3cr3t-token');
    expect(error.describe()).not.toContain('s3cr3t-token');
  });
});

describe('the SHA-256 of the text, taken of the bytes read', () => {
  const sha = (text: string) => createHash('sha256').update(text).digest('hex');
  it("is the text's own when the bytes are its UTF-8 (non-ASCII included)", async () => {
    const file = join(dir, 'utf8.yaml');
    await writeFile(file, 'openapi: 3.0.3\ninfo: { title: "Café ’23 — ✓" }\n');
    const read = await readOpenApiSource(file, { cwd: dir });
    expect(read.sha256).toBe(sha(read.text));
  });
  it('is left out when decoding changed the bytes: a BOM dropped, an invalid sequence replaced', async () => {
    await writeFile(join(dir, 'bom.yaml'), Buffer.from('\uFEFFopenapi: 3.0.3\n'));
    await writeFile(
      join(dir, 'bad.yaml'),
      Buffer.concat([Buffer.from('openapi: 3.0.3\n# '), Buffer.from([0xff, 0xfe])]),
    );
    for (const name of ['bom.yaml', 'bad.yaml']) {
      const read = await readOpenApiSource(join(dir, name), { cwd: dir });
      expect(read.sha256).toBeUndefined();
    }
  });
  it('reads the text exactly, and hands its newline form to the renderer (core/text-with-newline.ts)', async () => {
    const text = '{\n  "openapi": "3.0.3",\n  "info": { "title": "Café ’23 — ✓" }\n}';
    for (const [name, bytes] of [
      ['plain.json', Buffer.from(text)],
      ['bom.json', Buffer.from(`\uFEFF${text}`)],
    ] as const) {
      await writeFile(join(dir, name), bytes);
      const read = await readOpenApiSource(join(dir, name), { cwd: dir });
      expect(read.text).toBe(text);
      expect(textWithNewline(read.text)).toBe(`${text}\n`);
    }
  });
});
