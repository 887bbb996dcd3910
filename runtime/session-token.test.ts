import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createSessionTokens, initClaims } from './session-token.js';

const key = randomBytes(32);
const tokens = createSessionTokens(key, 600);
const init = initClaims({
  protocolVersion: '2025-11-25',
  capabilities: { elicitation: { form: {} } },
  clientInfo: { name: 'host', version: '2' },
});

describe('session tokens', () => {
  it('carry the claims, an absolute expiry and a random part, in visible ASCII', () => {
    const now = Date.UTC(2026, 10, 26);
    const a = tokens.issue({ d: 'f'.repeat(32), p: 'pets', init }, now);
    const b = tokens.issue({ d: 'f'.repeat(32), p: 'pets', init }, now);
    expect(a).toMatch(/^s1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(a).not.toBe(b);
    expect(tokens.verify(a)).toMatchObject({
      d: 'f'.repeat(32),
      p: 'pets',
      i: now / 1000,
      e: now / 1000 + 600,
      init,
    });
  });

  it('refuse an altered claim, a cut signature, another key and garbage', () => {
    const token = tokens.issue({ d: 'a'.repeat(32), p: '', init }, Date.now());
    const [prefix, claims, mac] = token.split('.');
    const json = JSON.parse(Buffer.from(claims!, 'base64url').toString());
    const altered = Buffer.from(JSON.stringify({ ...json, p: 'other' })).toString('base64url');
    expect(tokens.verify(`${prefix}.${altered}.${mac}`)).toBeUndefined();
    expect(tokens.verify(token.slice(0, -3))).toBeUndefined();
    expect(createSessionTokens(randomBytes(32), 600).verify(token)).toBeUndefined();
    for (const junk of ['', 's1.', 's1..', 'not-a-token', crypto.randomUUID(), `s1.${'x'.repeat(5000)}.y`])
      expect(tokens.verify(junk)).toBeUndefined();
  });

  it('keep only the capabilities a server acts on when a client declares many', () => {
    const big = initClaims({
      protocolVersion: '2025-11-25',
      capabilities: {
        elicitation: {},
        roots: { listChanged: true },
        experimental: { x: { blob: 'y'.repeat(2000) } },
      },
      clientInfo: { name: 'n'.repeat(500), version: '1' },
    });
    expect(big.capabilities).toEqual({ elicitation: {}, roots: { listChanged: true } });
    expect(big.clientInfo.name.length).toBe(128);
  });
});
