/**
 * The private-address rule of client ID metadata documents: a client_id URL leading to a
 * loopback, private or link-local address is never fetched unless the operator opts in
 * (SVC_OAUTH_ALLOW_LOOPBACK=1 for loopback, SVC_OAUTH_ALLOW_PRIVATE=1 for every internal
 * address); the fetch goes to the address checked.
 */
import { createServer } from 'node:http';
import { type AddressInfo, isIP } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HostResolver, ResolvedAddress } from '../../core/private-address-resolve.js';
import { memoryLogger } from '../logger.js';
import type { DocumentGet } from './client-metadata-fetch.js';
import { createClientRegistry } from './clients.js';
import { createSealer } from './seal.js';

const now = () => Date.UTC(2026, 0, 1);
const sealer = createSealer(new Uint8Array(32).fill(3), 'https://mcp.example.test', now);
const REDIRECT = 'http://127.0.0.1:7777/callback';

/** A resolver answering from a table, as DNS would for those names; an address literal is itself. */
function resolverOf(table: Record<string, string[]>): HostResolver {
  return async (host) => {
    const found = isIP(host) ? [host] : table[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** A GET that records where it was sent and answers the document `url` names. */
function recordingGet(): DocumentGet & { calls: { url: string; addresses: readonly ResolvedAddress[] }[] } {
  const calls: { url: string; addresses: readonly ResolvedAddress[] }[] = [];
  const get = async (url: URL, addresses: readonly ResolvedAddress[]) => {
    calls.push({ url: url.href, addresses });
    return JSON.stringify({ client_id: url.href, client_name: 'doc', redirect_uris: [REDIRECT] });
  };
  return Object.assign(get, { calls });
}

const resolver = resolverOf({
  'metadata.internal.example.test': ['169.254.169.254'],
  'intranet.example.test': ['10.1.2.3'],
  'mixed.example.test': ['93.184.216.34', '192.168.0.9'],
  'public.example.test': ['93.184.216.34'],
  'v6.example.test': ['fd00::1'],
});

describe('client metadata documents: the private-address rule', () => {
  it('never fetches a document whose host is or resolves to an internal address, and says why in the log', async () => {
    const get = recordingGet();
    const logger = memoryLogger();
    const registry = createClientRegistry({
      sealer,
      now,
      resolver,
      get,
      logger,
      allowLoopback: false,
      allowPrivate: false,
    });
    for (const id of [
      'https://metadata.internal.example.test/client.json',
      'https://intranet.example.test/client.json',
      'https://mixed.example.test/client.json',
      'https://v6.example.test/client.json',
      'https://127.0.0.1/client.json',
      'https://[::1]/client.json',
      'https://10.0.0.8/client.json',
    ])
      expect(await registry.resolve(id)).toBeUndefined();
    expect(get.calls).toEqual([]);
    const refused = logger.records.filter((r) => r.event === 'oauth_client_metadata_refused');
    expect(refused).toHaveLength(7);
    expect(JSON.stringify(refused[0])).toContain('169.254.169.254');
    for (const r of refused) expect(JSON.stringify(r)).toContain('internal address');
  });

  it('fetches a public host at the address it checked', async () => {
    const get = recordingGet();
    const registry = createClientRegistry({
      sealer,
      now,
      resolver,
      get,
      allowLoopback: false,
      allowPrivate: false,
    });
    const id = 'https://public.example.test/client.json';
    expect(await registry.resolve(id)).toMatchObject({ clientId: id, redirectUris: [REDIRECT] });
    expect(get.calls).toEqual([{ url: id, addresses: [{ address: '93.184.216.34', family: 4 }] }]);
  });

  it('SVC_OAUTH_ALLOW_PRIVATE=1 lets internal addresses through; SVC_OAUTH_ALLOW_LOOPBACK=1 only loopback', async () => {
    const open = recordingGet();
    const anyPrivate = createClientRegistry({
      sealer,
      now,
      resolver,
      get: open,
      allowLoopback: false,
      allowPrivate: true,
    });
    expect(await anyPrivate.resolve('https://intranet.example.test/client.json')).toBeDefined();
    expect(open.calls[0]?.addresses).toEqual([{ address: '10.1.2.3', family: 4 }]);
    const loopbackOnly = recordingGet();
    const loopback = createClientRegistry({
      sealer,
      now,
      resolver,
      get: loopbackOnly,
      allowLoopback: true,
      allowPrivate: false,
    });
    expect(await loopback.resolve('https://intranet.example.test/client.json')).toBeUndefined();
    expect(await loopback.resolve('https://127.0.0.1/client.json')).toBeDefined();
    expect(loopbackOnly.calls.map((c) => c.url)).toEqual(['https://127.0.0.1/client.json']);
  });
});

describe('client metadata documents: the real GET', () => {
  let server: ReturnType<typeof createServer>;
  let base: string;
  let hits = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      hits++;
      if (req.url === '/redirect') {
        res.writeHead(302, { location: '/client.json' }).end();
        return;
      }
      if (req.url === '/huge') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(70 * 1024));
        return;
      }
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ client_id: `${base}${req.url}`, redirect_uris: [REDIRECT] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('a document on loopback is refused by default and fetched with SVC_OAUTH_ALLOW_LOOPBACK=1', async () => {
    const closed = createClientRegistry({ sealer, now, allowLoopback: false, allowPrivate: false });
    expect(await closed.resolve(`${base}/client.json`)).toBeUndefined();
    expect(hits).toBe(0);
    const open = createClientRegistry({ sealer, now, allowLoopback: true, allowPrivate: false });
    expect(await open.resolve(`${base}/client.json`)).toMatchObject({ redirectUris: [REDIRECT] });
    expect(hits).toBe(1);
    // No redirect is followed, and a document over 64 KiB is not read to the end.
    expect(await open.resolve(`${base}/redirect`)).toBeUndefined();
    expect(await open.resolve(`${base}/huge`)).toBeUndefined();
    expect(hits).toBe(3);
  });
});
