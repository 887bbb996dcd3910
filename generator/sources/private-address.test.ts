import { describe, expect, it } from 'vitest';
import { isPrivateHost } from './private-address.js';

describe('isPrivateHost', () => {
  it.each([
    'http://localhost/x',
    'http://api.localhost/x',
    'http://127.0.0.1:8080/x',
    'http://10.1.2.3/x',
    'http://172.20.0.1/x',
    'http://192.168.1.1/x',
    'http://169.254.169.254/latest/meta-data',
    'http://0.0.0.0/x',
    'http://[::1]/x',
    'http://[fd00::1]/x',
    'http://[fe80::1]/x',
    'http://[::ffff:127.0.0.1]/x',
  ])('%s is private', (url) => {
    expect(isPrivateHost(new URL(url))).toBe(true);
  });
  it.each(['https://api.example.com/x', 'http://8.8.8.8/x', 'http://172.32.0.1/x', 'http://[2001:db8::1]/x'])(
    '%s is not',
    (url) => {
      expect(isPrivateHost(new URL(url))).toBe(false);
    },
  );
});
