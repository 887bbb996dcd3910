import { describe, expect, it } from 'vitest';
import { authWarning, declaredSchemes, suggestAuth } from './auth-suggestion.js';

const openapi = (schemes: Record<string, unknown>, security?: unknown[]) => ({
  openapi: '3.0.1',
  paths: {},
  components: { securitySchemes: schemes },
  ...(security ? { security } : {}),
});

describe('suggestAuth', () => {
  it.each([
    [{ type: 'http', scheme: 'basic' }, ['--auth', 'basic']],
    [{ type: 'http', scheme: 'Bearer', bearerFormat: 'JWT' }, ['--auth', 'bearer']],
    [
      { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
      ['--auth', 'api_key', '--api-key-in', 'header', '--api-key-name', 'X-Api-Key'],
    ],
    [
      { type: 'apiKey', in: 'query', name: 'key' },
      ['--auth', 'api_key', '--api-key-in', 'query', '--api-key-name', 'key'],
    ],
    [{ type: 'oauth2', flows: {} }, ['--auth', 'user_oauth']],
    [{ type: 'openIdConnect', openIdConnectUrl: 'https://id.example/' }, ['--auth', 'user_oauth']],
  ])('%j → %j', (scheme, flags) => {
    expect(suggestAuth(declaredSchemes(openapi({ s: scheme }), 'openapi-3.0'))?.flags).toEqual(flags);
  });

  it('follows the scheme the security requirements use first', () => {
    const declared = declaredSchemes(
      openapi({ a_basic: { type: 'http', scheme: 'basic' }, z_bearer: { type: 'http', scheme: 'bearer' } }, [
        { z_bearer: [] },
      ]),
      'openapi-3.1',
    );
    expect(suggestAuth(declared)).toEqual({
      scheme: 'z_bearer',
      kind: 'http bearer',
      flags: ['--auth', 'bearer'],
    });
  });

  it('reads Swagger 2.0 securityDefinitions', () => {
    const declared = declaredSchemes(
      { swagger: '2.0', paths: {}, securityDefinitions: { b: { type: 'basic' } } },
      'swagger-2.0',
    );
    expect(suggestAuth(declared)?.flags).toEqual(['--auth', 'basic']);
  });

  it('warns with the flags, says when no mode fits, and is silent without schemes', () => {
    expect(
      authWarning(
        declaredSchemes(openapi({ accountSid_authToken: { type: 'http', scheme: 'basic' } }), 'openapi-3.0'),
      ),
    ).toBe(
      'the document declares security schemes (accountSid_authToken (http basic)) but this folder has auth: none; to send a credential, create the folder with `--auth basic` (or set auth in config.yaml)',
    );
    expect(
      authWarning(
        declaredSchemes(openapi({ c: { type: 'apiKey', in: 'cookie', name: 'sid' } }), 'openapi-3.0'),
      ),
    ).toMatch(/apiKey in cookie sid.*no auth mode for it/);
    expect(authWarning(declaredSchemes({ openapi: '3.0.0', paths: {} }, 'openapi-3.0'))).toBeUndefined();
  });
});
