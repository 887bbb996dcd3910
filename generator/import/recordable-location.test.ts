import { describe, expect, it } from 'vitest';
import { recordableLocation } from './recordable-location.js';

describe('recordableLocation', () => {
  it('drops credentials from URLs and keeps everything else', () => {
    expect(recordableLocation('https://u:p4ss@api.example.test/openapi.json?v=2&api_key=s3cr3t')).toBe(
      'https://api.example.test/openapi.json?v=2&api_key=REDACTED',
    );
    expect(recordableLocation('../specs/openapi.yaml')).toBe('../specs/openapi.yaml');
    expect(recordableLocation('http://x.test/a?token=t&access_token=u')).not.toMatch(/=t\b|=u\b/);
  });
});
