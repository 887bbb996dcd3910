import { describe, expect, it } from 'vitest';
import { defaultBaseUrl } from './base-url.js';
import type { ParsedDocument } from './parse-document.js';

function oas(document: Record<string, unknown>): ParsedDocument {
  return { version: 'openapi-3.0', document, title: 'T' };
}
function swagger(document: Record<string, unknown>): ParsedDocument {
  return { version: 'swagger-2.0', document, title: 'T' };
}

describe('defaultBaseUrl', () => {
  it('takes servers[0] with variables at their defaults, without a trailing slash', () => {
    const parsed = oas({
      servers: [
        {
          url: 'https://{region}.api.test/{v}/',
          variables: { region: { default: 'eu' }, v: { default: 'v2' } },
        },
      ],
    });
    expect(defaultBaseUrl(parsed, '/tmp/api.yaml')).toBe('https://eu.api.test/v2');
  });

  it('resolves a relative server URL against the document URL', () => {
    expect(
      defaultBaseUrl(oas({ servers: [{ url: '/api/v3' }] }), 'https://petstore.test/openapi/spec.json'),
    ).toBe('https://petstore.test/api/v3');
    expect(defaultBaseUrl(oas({ servers: [{ url: '/api/v3' }] }), '/tmp/spec.json')).toBeUndefined();
  });

  it("falls back to the document's origin (spec 2.1)", () => {
    expect(defaultBaseUrl(oas({}), 'https://docs.test/x/openapi.yaml')).toBe('https://docs.test');
    expect(defaultBaseUrl(oas({}), '/tmp/openapi.yaml')).toBeUndefined();
  });

  it('builds scheme://host+basePath for Swagger 2.0, preferring https', () => {
    expect(
      defaultBaseUrl(swagger({ host: 'a.test', basePath: '/v1/', schemes: ['http', 'https'] }), '/f'),
    ).toBe('https://a.test/v1');
    expect(defaultBaseUrl(swagger({ host: 'a.test', schemes: ['http'] }), '/f')).toBe('http://a.test');
    expect(defaultBaseUrl(swagger({ basePath: '/v1' }), 'http://b.test:8080/swagger.json')).toBe(
      'http://b.test:8080/v1',
    );
  });
});
