import { describe, expect, it } from 'vitest';
import { buildOriginPolicy, checkOrigin } from './origin-policy.js';

describe('checkOrigin', () => {
  const loopback = buildOriginPolicy({ listenHost: '127.0.0.1', port: 3002 });
  const restricted = buildOriginPolicy({
    listenHost: '0.0.0.0',
    port: 3002,
    publicUrl: 'https://mcp.example.test',
    allowedOrigins: ['https://app.example.test'],
  });

  it('allows a request without Origin', () => {
    expect(checkOrigin(loopback, undefined, 'localhost:3002').ok).toBe(true);
    expect(checkOrigin(restricted, undefined, 'anything:3002').ok).toBe(true);
  });

  it('judges same-origin against configured origins, never the Host header', () => {
    expect(checkOrigin(restricted, 'https://mcp.example.test', 'mcp.example.test').ok).toBe(true);
    expect(checkOrigin(restricted, 'http://localhost:3002', 'localhost:3002').ok).toBe(true);
    expect(checkOrigin(restricted, 'http://attacker.test:3002', 'attacker.test:3002').ok).toBe(false);
  });

  it('refuses origins outside MCP_ALLOWED_ORIGINS when it is set, accepts all when unset', () => {
    expect(checkOrigin(restricted, 'https://app.example.test', 'x').ok).toBe(true);
    expect(checkOrigin(restricted, 'https://evil.example.test', 'x')).toMatchObject({
      ok: false,
      status: 403,
    });
    expect(checkOrigin(loopback, 'https://evil.example.test', 'localhost:3002').ok).toBe(true);
  });

  it('checks Host against loopback names when bound to loopback (DNS rebinding)', () => {
    expect(checkOrigin(loopback, undefined, 'evil.example.com:3002').ok).toBe(false);
    expect(checkOrigin(loopback, undefined, undefined).ok).toBe(false);
    for (const host of ['localhost:3002', '127.0.0.1:3002', '[::1]:3002', 'localhost']) {
      expect(checkOrigin(loopback, undefined, host).ok, host).toBe(true);
    }
    expect(checkOrigin(restricted, undefined, 'container-name:3002').ok).toBe(true);
  });

  it('never throws on garbage', () => {
    for (const origin of ['', 'null', '%', 'http://', '\u0000', 'a'.repeat(10_000)]) {
      expect(checkOrigin(loopback, origin, 'localhost:3002').ok).toBe(false);
    }
    for (const host of ['', '[', 'a b', 'user@host', 'localhost/x']) {
      expect(checkOrigin(loopback, undefined, host).ok).toBe(false);
    }
  });
});
