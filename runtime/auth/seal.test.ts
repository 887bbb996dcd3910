import { describe, expect, it } from 'vitest';
import { acceptableRedirectUri, createClientRegistry } from './clients.js';
import type { DocumentGet } from './client-metadata-fetch.js';
import { createSealer } from './seal.js';

const key = new Uint8Array(32).fill(9);
let clock = Date.UTC(2026, 0, 1);
const now = () => clock;

describe('createSealer', () => {
  const sealer = createSealer(key, 'https://mcp.example.test', now);

  it('opens what it sealed, as the same kind only, before it expires', async () => {
    const sealed = await sealer.seal('at', { cid: 'c', aud: 'https://mcp.example.test/mcp' }, 60);
    expect(await sealer.open('at', sealed)).toMatchObject({ cid: 'c', iss: 'https://mcp.example.test' });
    // A sealed code or refresh token never passes for an access token, and the other way round.
    expect(await sealer.open('rt', sealed)).toBeUndefined();
    expect(await sealer.open('code', sealed)).toBeUndefined();
    clock += 61_000;
    expect(await sealer.open('at', sealed)).toBeUndefined();
  });

  it('refuses another key, another issuer and a tampered value', async () => {
    const sealed = await sealer.seal('code', { x: 1 }, 60);
    expect(
      await createSealer(new Uint8Array(32).fill(1), 'https://mcp.example.test', now).open('code', sealed),
    ).toBeUndefined();
    expect(await createSealer(key, 'https://other.example.test', now).open('code', sealed)).toBeUndefined();
    const tampered = `${sealed.slice(0, -3)}${sealed.endsWith('AAA') ? 'BBB' : 'AAA'}`;
    expect(await sealer.open('code', tampered)).toBeUndefined();
    expect(await sealer.open('code', 'not-a-jwe')).toBeUndefined();
  });
});

describe('client registry', () => {
  const sealer = createSealer(key, 'https://mcp.example.test', now);
  const never: DocumentGet = async () => {
    throw new Error('no fetch expected');
  };

  it('refuses http client metadata documents unless loopback is allowed, and never fetches them', async () => {
    const registry = createClientRegistry({
      sealer,
      allowLoopback: false,
      allowPrivate: false,
      get: never,
      now,
    });
    expect(await registry.resolve('http://127.0.0.1:9/client.json')).toBeUndefined();
    expect(await registry.resolve('http://example.test/client.json')).toBeUndefined();
    expect(await registry.resolve('https://example.test/')).toBeUndefined();
  });

  it('registers statelessly: the client_id carries the registration', async () => {
    const registry = createClientRegistry({
      sealer,
      allowLoopback: false,
      allowPrivate: false,
      get: never,
      now,
    });
    const out = await registry.register({ redirect_uris: ['http://localhost:7777/cb'], client_name: 'n' });
    expect(out.ok).toBe(true);
    if (!out.ok) throw new Error(out.error);
    const id = String(out.client.client_id);
    expect(await registry.resolve(id)).toMatchObject({
      redirectUris: ['http://localhost:7777/cb'],
      name: 'n',
    });
    expect((await registry.register({ redirect_uris: ['http://evil.example.test/cb'] })).ok).toBe(false);
  });

  it('accepts https and loopback http redirect URIs only', () => {
    expect(acceptableRedirectUri('https://app.example.test/cb')).toBe(true);
    expect(acceptableRedirectUri('http://127.0.0.1:3000/cb')).toBe(true);
    expect(acceptableRedirectUri('http://app.example.test/cb')).toBe(false);
    expect(acceptableRedirectUri('https://app.example.test/cb#frag')).toBe(false);
    expect(acceptableRedirectUri('javascript:alert(1)')).toBe(false);
  });
});
