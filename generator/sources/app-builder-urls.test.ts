import { describe, expect, it } from 'vitest';
import {
  apiBaseUrlOf,
  branchFolder,
  checkBranchId,
  customDomainFromMeta,
  metaUrlOf,
  swaggerUrlOf,
  verificationPageUrlOf,
} from './app-builder-urls.js';

describe('app-builder URLs', () => {
  it('puts Live on the custom domain and Main on version-test of the platform', () => {
    const live = { appId: 'acme', branch: 'live', customDomain: 'shop.acme.com' };
    expect(swaggerUrlOf(live)).toBe('https://shop.acme.com/api/1.1/meta/swagger.json');
    expect(swaggerUrlOf({ ...live, branch: 'main' })).toBe(
      'https://acme.bubbleapps.io/version-test/api/1.1/meta/swagger.json',
    );
    expect(apiBaseUrlOf({ appId: 'acme', branch: 'live' })).toBe('https://acme.bubbleapps.io/api/1.1');
    expect(apiBaseUrlOf({ appId: 'acme', branch: 'feature1' })).toBe(
      'https://acme.bubbleapps.io/version-feature1/api/1.1',
    );
    expect(branchFolder('feature1')).toBe('version-feature1');
    expect(metaUrlOf('acme', 'http://127.0.0.1:9/{app}/')).toBe('http://127.0.0.1:9/acme/api/1.1/meta');
    expect(verificationPageUrlOf({ appId: 'acme', branch: 'main' }, 'svcverifyab12')).toBe(
      'https://acme.bubbleapps.io/version-test/svcverifyab12',
    );
  });

  it('reads a custom domain from the meta response defensively', () => {
    expect(customDomainFromMeta({ app_data: { domain: 'shop.acme.com' } })).toBe('shop.acme.com');
    expect(customDomainFromMeta({ app_data: { domain: 'acme.bubbleapps.io' } })).toBeUndefined();
    expect(customDomainFromMeta({ app_data: { domain: 'evil.com/path?x' } })).toBeUndefined();
    expect(customDomainFromMeta({ app_data: { domain: 'user:pw@evil.com' } })).toBeUndefined();
    expect(customDomainFromMeta({ app_data: {} })).toBeUndefined();
    expect(customDomainFromMeta(['x'])).toBeUndefined();
    expect(customDomainFromMeta(null)).toBeUndefined();
  });

  it('keeps live, main and test for the default branches', () => {
    expect(() => checkBranchId('test')).toThrow(/default branches/);
    expect(() => checkBranchId('Bad/Id')).toThrow(/not an extra branch id/);
    expect(checkBranchId('feature1')).toBe('feature1');
  });
});
