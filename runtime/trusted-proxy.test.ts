import { describe, expect, it } from 'vitest';
import { parseRuntimeEnv } from './env.js';
import { clientAddressOf } from './trusted-proxy.js';

describe('clientAddressOf', () => {
  it('ignores X-Forwarded-For unless SVC_TRUST_PROXY is set', () => {
    expect(clientAddressOf(false)('10.0.0.9', '1.2.3.4')).toBe('10.0.0.9');
  });

  it('SVC_TRUST_PROXY=1 keeps taking the first entry, from any peer', () => {
    expect(clientAddressOf(true)('10.0.0.9', '1.2.3.4, 5.6.7.8')).toBe('1.2.3.4');
    expect(clientAddressOf(true)('10.0.0.9', null)).toBe('10.0.0.9');
  });

  it('with a list, reads the header only from listed proxies and takes the rightmost entry not listed', () => {
    const of = clientAddressOf(true, ['10.0.0.5', '10.1.0.0/16', 'fd00::/8']);
    expect(of('10.0.0.5', '6.6.6.6, 1.2.3.4')).toBe('1.2.3.4');
    expect(of('::ffff:10.0.0.5', '1.2.3.4, 10.1.2.3')).toBe('1.2.3.4');
    expect(of('fd00::1', '2001:db8::7')).toBe('2001:db8::7');
    expect(of('10.0.0.7', '1.2.3.4')).toBe('10.0.0.7');
    expect(of('10.0.0.5', 'not-an-address')).toBe('10.0.0.5');
    expect(of('10.0.0.5', undefined)).toBe('10.0.0.5');
  });

  it('SVC_TRUST_PROXY takes 1/0 or a list of addresses and ranges, and names a bad entry', () => {
    expect(parseRuntimeEnv({ SVC_TRUST_PROXY: '1' })).toMatchObject({ trustProxy: true });
    expect(parseRuntimeEnv({ SVC_TRUST_PROXY: '0' }).trustedProxies).toBeUndefined();
    expect(parseRuntimeEnv({ SVC_TRUST_PROXY: '10.0.0.5, 10.1.0.0/16' })).toMatchObject({
      trustProxy: true,
      trustedProxies: ['10.0.0.5', '10.1.0.0/16'],
    });
    expect(() => parseRuntimeEnv({ SVC_TRUST_PROXY: '10.0.0.5,haproxy' })).toThrow(/not an address: haproxy/);
    expect(() => parseRuntimeEnv({ SVC_TRUST_PROXY: '10.0.0.0/33' })).toThrow(/10.0.0.0\/33/);
  });
});
