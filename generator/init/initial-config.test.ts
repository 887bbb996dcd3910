import { describe, expect, it } from 'vitest';
import { initialConfig, serverIdFrom } from './initial-config.js';

describe('initialConfig', () => {
  it('records api key placement and that a secret exists, never a value', () => {
    const config = initialConfig({
      name: 'CRM',
      serverId: 'crm',
      baseUrl: 'https://crm.example.test/api/',
      auth: { mode: 'api_key', apiKeyIn: 'header', apiKeyName: 'X-API-Key' },
    });
    expect(config.auth).toEqual({
      mode: 'api_key',
      hasAuthSecret: true,
      apiKey: { in: 'header', name: 'X-API-Key' },
    });
    expect(config.apiBaseUrl).toBe('https://crm.example.test/api');
    expect(config.requiredEnv).toEqual(['SVC_UPSTREAM_SECRET']);
    expect(config.source).toEqual({ kind: 'manual' });
    expect(config.app.provider).toBe('manual');
  });

  it('keeps a git source as given (provider git), and refuses credentials in its URLs', () => {
    const git = {
      kind: 'git' as const,
      provider: 'git' as const,
      repository: 'https://git.example.test/team/api.git',
      branch: 'main',
      path: 'openapi.yaml',
      contentDir: 'mcp',
    };
    const config = initialConfig({ name: 'Api', serverId: 'api', git });
    expect(config.source).toEqual(git);
    expect(config.app.provider).toBe('git');
    expect(() =>
      initialConfig({
        name: 'Api',
        serverId: 'api',
        git: { ...git, repository: 'https://u:p@git.example.test/a.git' },
      }),
    ).toThrow(/credentials/);
    expect(() =>
      initialConfig({
        name: 'Api',
        serverId: 'api',
        git: {
          kind: 'git',
          provider: 'raw',
          rawUrlTemplate: 'https://h/raw/{ref}/{path}?token=x',
          branch: 'm',
          path: 'a',
        },
      }),
    ).toThrow(/credential/);
  });

  it('keeps an OpenAPI source and leaves the base URL to the first import', () => {
    const config = initialConfig({
      name: 'Petstore',
      serverId: 'petstore',
      openapi: 'https://example.test/openapi.yaml',
    });
    expect(config.source).toEqual({ kind: 'openapi', location: 'https://example.test/openapi.yaml' });
    expect(config.apiBaseUrl).toBe('');
    expect(config.auth).toEqual({ mode: 'none', hasAuthSecret: false });
  });

  it('refuses a manual app without a base URL', () => {
    expect(() => initialConfig({ name: 'X', serverId: 'x' })).toThrow(/--base-url/);
  });

  it('refuses URLs that carry credentials', () => {
    expect(() =>
      initialConfig({ name: 'X', serverId: 'x', openapi: 'https://user:hunter2@example.test/openapi.json' }),
    ).toThrow(/credentials/);
    expect(() =>
      initialConfig({
        name: 'X',
        serverId: 'x',
        openapi: 'https://example.test/openapi.json?access_token=abc',
      }),
    ).toThrow(/"access_token" looks like a credential/);
    expect(
      initialConfig({ name: 'X', serverId: 'x', openapi: 'https://example.test/openapi?format=yaml' }).source,
    ).toEqual({ kind: 'openapi', location: 'https://example.test/openapi?format=yaml' });
  });

  it('refuses api_key without a name and api key flags with another mode', () => {
    expect(() =>
      initialConfig({ name: 'X', serverId: 'x', baseUrl: 'https://a.test', auth: { mode: 'api_key' } }),
    ).toThrow(/--api-key-name/);
    expect(() =>
      initialConfig({
        name: 'X',
        serverId: 'x',
        baseUrl: 'https://a.test',
        auth: { mode: 'bearer', apiKeyName: 'k' },
      }),
    ).toThrow(/only apply/);
  });

  it('derives stable server ids', () => {
    expect(serverIdFrom('My Pet Store!')).toBe('my-pet-store');
    expect(serverIdFrom('***')).toBe('default');
  });

  it('records basic auth with the variables it reads, and --compact', () => {
    const config = initialConfig({
      name: 'Twilio',
      serverId: 'twilio',
      baseUrl: 'https://api.twilio.example',
      auth: { mode: 'basic' },
      compact: true,
    });
    expect(config.auth).toEqual({ mode: 'basic', hasAuthSecret: true });
    expect(config.requiredEnv).toEqual(['SVC_UPSTREAM_SECRET', 'SVC_UPSTREAM_USER']);
    expect(config.compact).toBe(true);
    expect(initialConfig({ name: 'X', serverId: 'x', baseUrl: 'https://a.test' }).compact).toBeUndefined();
  });
});
