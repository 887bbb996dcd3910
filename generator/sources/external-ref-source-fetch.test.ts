import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import { fetchExternalRef } from './external-ref-source-fetch.js';

let server: Server;
let base: string;
const loopback = async () => [{ address: '127.0.0.1', family: 4 }];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.url === '/drip') {
      // Headers at once, then a byte now and then: only a deadline on the whole fetch ends it.
      res.writeHead(200, { 'content-type': 'application/yaml' });
      const timer = setInterval(() => res.write('#'), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (req.url === '/big') return void res.writeHead(200).end('x'.repeat(5000));
    res.writeHead(200, { 'content-type': 'application/yaml' }).end('\ufefftype: object\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function failure(path: string, opts: { timeoutMs?: number; maxBytes?: number }): Promise<SvcError> {
  const error = await fetchExternalRef(new URL(`${base}${path}`), {
    check: loopback,
    timeoutMs: opts.timeoutMs ?? 5000,
    maxBytes: opts.maxBytes ?? 1_000_000,
  }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

describe('fetchExternalRef', () => {
  it('reads a file, dropping a byte-order mark', async () => {
    const read = await fetchExternalRef(new URL(`${base}/ok.yaml`), {
      check: loopback,
      timeoutMs: 5000,
      maxBytes: 1000,
    });
    expect(read).toEqual({ text: 'type: object\n', origin: `${base}/ok.yaml`, bytes: 16 });
  });

  it('ends a body that never finishes at the deadline', async () => {
    const started = Date.now();
    const error = await failure('/drip', { timeoutMs: 300 });
    expect(error.code).toBe('SOURCE_UNREACHABLE');
    expect(error.message).toContain('timed out after 300 ms');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('stops reading at the size limit', async () => {
    const error = await failure('/big', { maxBytes: 1000 });
    expect(error.code).toBe('SOURCE_TOO_LARGE');
  });
});
