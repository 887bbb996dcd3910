import { describe, expect, it } from 'vitest';
import { isPrivateAddress, isPrivateHost } from './private-address.js';

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

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '10.0.0.7',
    '169.254.169.254',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fd12::1',
    'fe80::1%eth0',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:a9fe:a9fe',
    '64:ff9b::127.0.0.1',
    '64:ff9b::a00:7',
    '::127.0.0.1',
    '::ffff:0:127.0.0.1',
    '64:ff9b:1::a00:1',
    '2002:7f00:1::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '100::1',
    'ff02::1',
    'not-an-address',
  ])('%s is not public', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });
  it.each(['93.184.216.34', '8.8.8.8', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])(
    '%s is public',
    (address) => {
      expect(isPrivateAddress(address)).toBe(false);
    },
  );
});
