import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadControlKey, secretBox } from './secret-box.js';
import { bearerToken, expiryFromDays, hashToken, newToken, parseTrustProxy } from './tokens.js';

describe('secret box', () => {
  it('seals and opens; the sealed text does not contain the secret; another key or a change fails', () => {
    const box = secretBox(randomBytes(32));
    const sealed = box.seal('whsec_c2VjcmV0');
    expect(sealed).not.toContain('c2VjcmV0');
    expect(box.open(sealed)).toBe('whsec_c2VjcmV0');
    expect(box.seal('x')).not.toBe(box.seal('x'));
    expect(() => secretBox(randomBytes(32)).open(sealed)).toThrow(/cannot be opened/);
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('makes the key file once (0600) and reuses it; SVC_CONTROL_KEY wins and must be 32 bytes', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-key-'));
    try {
      const first = await loadControlKey(dir, undefined);
      expect(first).toHaveLength(32);
      expect(statSync(join(dir, 'secret.key')).mode & 0o777).toBe(0o600);
      expect(await loadControlKey(dir, undefined)).toEqual(first);
      const env = randomBytes(32);
      expect(await loadControlKey(dir, env.toString('base64'))).toEqual(env);
      await expect(loadControlKey(dir, 'c2hvcnQ=')).rejects.toThrow(/32 bytes/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('tokens', () => {
  it('are prefixed, random, and hashed for storage', () => {
    const a = newToken('svc_pat_');
    expect(a).toMatch(/^svc_pat_[A-Za-z0-9_-]{43}$/);
    expect(newToken('svc_pat_')).not.toBe(a);
    expect(hashToken(a)).toMatch(/^[0-9a-f]{64}$/);
    expect(bearerToken(`Bearer ${a}`)).toBe(a);
    expect(bearerToken(`bearer  ${a} `)).toBe(a);
    expect(bearerToken(`Basic ${a}`)).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});

describe('token and proxy settings', () => {
  it('reads an expiry in whole days, 1 to 3650', () => {
    const now = Date.parse('2026-01-01T00:00:00.000Z');
    expect(expiryFromDays(7, now)).toBe('2026-01-08T00:00:00.000Z');
    expect(expiryFromDays('30', now)).toBe('2026-01-31T00:00:00.000Z');
    for (const bad of [0, -1, 1.5, 3651, '7d', '', null]) expect(expiryFromDays(bad, now)).toBeUndefined();
  });

  it('trusts X-Forwarded-Proto only when SVC_CONTROL_TRUST_PROXY says so', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('1')).toBe(true);
    expect(parseTrustProxy(' true ')).toBe(true);
    expect(() => parseTrustProxy('maybe')).toThrow(/SVC_CONTROL_TRUST_PROXY must be 1 or 0/);
  });
});
