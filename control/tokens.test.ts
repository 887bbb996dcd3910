import { describe, expect, it } from 'vitest';
import { bearerToken, expiryFromDays, hashToken, newToken, parseTrustProxy } from './tokens.js';

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
