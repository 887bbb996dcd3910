import { describe, expect, it } from 'vitest';
import { isSvcError } from '../core/svc-error.js';
import { parseRuntimeEnv } from './env.js';

function fails(env: Record<string, string>): { code: string; field?: string; message: string } {
  try {
    parseRuntimeEnv(env);
  } catch (error) {
    if (isSvcError(error)) return { code: error.code, field: error.place.field, message: error.message };
    throw error;
  }
  throw new Error('did not fail');
}

describe('parseRuntimeEnv', () => {
  it('applies the spec 5.5 defaults', () => {
    expect(parseRuntimeEnv({})).toEqual({
      mode: 'standalone',
      port: 3002,
      host: '127.0.0.1',
      syncIntervalSec: 60,
      upstreamTimeoutMs: 30_000,
      maxResponseBytes: 10 * 1024 * 1024,
      configVersions: 3,
      sessionMaxAgeSec: 86_400,
      trustProxy: false,
      metrics: true,
      executionLogMaxBytes: 10 * 1024 * 1024,
      logArguments: false,
      shutdownGraceMs: 10_000,
      mcpAuth: 'none',
    });
  });

  it('reads SVC_SESSION_SECRET as hex or base64 of 32+ bytes, never echoing a bad one', () => {
    const hex = 'ab'.repeat(32);
    expect(parseRuntimeEnv({ SVC_SESSION_SECRET: hex }).sessionSecret).toEqual(
      new Uint8Array(Buffer.from(hex, 'hex')),
    );
    const b64 = Buffer.alloc(48, 7).toString('base64');
    expect(parseRuntimeEnv({ SVC_SESSION_SECRET: b64 }).sessionSecret?.length).toBe(48);
    const short = fails({ SVC_SESSION_SECRET: 'c2hvcnQtc2VjcmV0' });
    expect(short).toMatchObject({ code: 'USAGE', field: 'SVC_SESSION_SECRET' });
    expect(short.message).not.toContain('c2hvcnQtc2VjcmV0');
    expect(fails({ SVC_SESSION_SECRET: 'not base64 at all!' }).field).toBe('SVC_SESSION_SECRET');
    expect(parseRuntimeEnv({ SVC_CONFIG_VERSIONS: '5' }).configVersions).toBe(5);
    expect(fails({ SVC_CONFIG_VERSIONS: '0' }).field).toBe('SVC_CONFIG_VERSIONS');
  });

  it('reads the operations variables (docs/operations.md)', () => {
    const env = parseRuntimeEnv({
      SVC_TRUST_PROXY: '1',
      SVC_METRICS: '0',
      SVC_METRICS_TOKEN: ' m-token ',
      SVC_EXECUTION_LOG: '/var/log/svc/calls.jsonl',
      SVC_EXECUTION_LOG_MAX_BYTES: '2048',
      SVC_LOG_ARGUMENTS: 'true',
      SVC_SHUTDOWN_GRACE_MS: '500',
    });
    expect(env).toMatchObject({
      trustProxy: true,
      metrics: false,
      metricsToken: 'm-token',
      executionLog: '/var/log/svc/calls.jsonl',
      executionLogMaxBytes: 2048,
      logArguments: true,
      shutdownGraceMs: 500,
    });
    expect(parseRuntimeEnv({ SVC_EXECUTION_LOG: 'off' }).executionLog).toBeUndefined();
    expect(fails({ SVC_TRUST_PROXY: 'maybe' }).field).toBe('SVC_TRUST_PROXY');
  });

  it('reads every variable', () => {
    const env = parseRuntimeEnv({
      SVC_FOLDER_PATH: '/folder',
      SVC_BUNDLE_PATH: '/old.json',
      SVC_RUNTIME_MODE: 'standalone',
      SVC_UPSTREAM_SECRET: ' s3cret \n',
      MCP_RUNTIME_PORT: '4000',
      MCP_RUNTIME_HOST: '0.0.0.0',
      MCP_RUNTIME_PUBLIC_URL: 'https://mcp.example.test/',
      MCP_ALLOWED_ORIGINS: 'https://b.example.test, https://a.example.test:8443 ,https://b.example.test',
      SVC_SYNC_URL: 'https://control.example.test',
      SVC_DEPLOY_TOKEN: 'dt',
      SVC_SYNC_INTERVAL: '10',
    });
    expect(env).toMatchObject({
      folderPath: '/folder',
      bundlePath: '/old.json',
      upstreamSecret: 's3cret',
      port: 4000,
      host: '0.0.0.0',
      publicUrl: 'https://mcp.example.test',
      allowedOrigins: ['https://a.example.test:8443', 'https://b.example.test'],
      syncUrl: 'https://control.example.test',
      deployToken: 'dt',
      syncIntervalSec: 10,
    });
  });

  it('reads the basic-auth user name beside the secret', () => {
    const env = parseRuntimeEnv({ SVC_UPSTREAM_USER: ' ACcount ', SVC_UPSTREAM_SECRET: 'token' });
    expect(env).toMatchObject({ upstreamUser: 'ACcount', upstreamSecret: 'token' });
    expect(parseRuntimeEnv({ SVC_UPSTREAM_USER: '' }).upstreamUser).toBeUndefined();
  });

  it('accepts the original FLOWCP_BUNDLE_PATH name for the legacy bundle', () => {
    expect(parseRuntimeEnv({ FLOWCP_BUNDLE_PATH: '/b.json' }).bundlePath).toBe('/b.json');
  });

  it('names the variable in every refusal', () => {
    expect(fails({ MCP_RUNTIME_PORT: 'abc' })).toMatchObject({ code: 'USAGE', field: 'MCP_RUNTIME_PORT' });
    expect(fails({ MCP_RUNTIME_PORT: '70000' }).field).toBe('MCP_RUNTIME_PORT');
    expect(fails({ SVC_RUNTIME_MODE: 'hosted' }).field).toBe('SVC_RUNTIME_MODE');
    expect(fails({ SVC_SYNC_INTERVAL: '5' }).message).toMatch(/between 10/);
    expect(fails({ MCP_ALLOWED_ORIGINS: 'https://a.example.test/path' }).field).toBe('MCP_ALLOWED_ORIGINS');
    expect(fails({ MCP_ALLOWED_ORIGINS: 'ftp://a.example.test' }).field).toBe('MCP_ALLOWED_ORIGINS');
    expect(fails({ MCP_RUNTIME_PUBLIC_URL: 'not a url' }).field).toBe('MCP_RUNTIME_PUBLIC_URL');
    expect(fails({ SVC_SYNC_URL: 'https://c.example.test' })).toMatchObject({
      code: 'CONFIG_MISSING_ENV',
      field: 'SVC_DEPLOY_TOKEN',
    });
  });

  it('reads the inbound auth and OAuth variables, refusing bad ones without echoing them', () => {
    const hash = 'A'.repeat(64);
    const key = Buffer.alloc(32, 7).toString('base64');
    const env = parseRuntimeEnv({
      MCP_AUTH: 'bearer',
      SVC_MCP_TOKENS: ` ${hash} ,${'b'.repeat(64)}`,
      SVC_OAUTH_KEY: key,
      SVC_OAUTH_CLIENT_ID: 'client',
      ACME_OAUTH_SECRET: 'named-by-folder',
      ACME_CLIENT_ID: 'acme-id',
      HOME: '/root',
      SVC_OAUTH_ALLOW_LOOPBACK: '1',
    });
    expect(env).toMatchObject({
      mcpAuth: 'bearer',
      mcpTokenHashes: ['a'.repeat(64), 'b'.repeat(64)],
      oauthClients: {
        SVC_OAUTH_CLIENT_ID: 'client',
        ACME_OAUTH_SECRET: 'named-by-folder',
        ACME_CLIENT_ID: 'acme-id',
      },
      oauthAllowLoopback: true,
    });
    expect(env.oauthKey?.length).toBe(32);
    // Only client credential names are kept, never the rest of the environment.
    expect(Object.keys(env.oauthClients ?? {}).sort()).toEqual([
      'ACME_CLIENT_ID',
      'ACME_OAUTH_SECRET',
      'SVC_OAUTH_CLIENT_ID',
    ]);
    expect(fails({ MCP_AUTH: 'basic' }).field).toBe('MCP_AUTH');
    expect(fails({ MCP_AUTH: 'bearer' })).toMatchObject({
      code: 'CONFIG_MISSING_ENV',
      field: 'SVC_MCP_TOKENS',
    });
    const pasted = fails({ SVC_MCP_TOKENS: 'the-plain-token' });
    expect(pasted.field).toBe('SVC_MCP_TOKENS');
    expect(pasted.message).not.toContain('the-plain-token');
    expect(fails({ SVC_OAUTH_KEY: 'c2hvcnQ=' }).field).toBe('SVC_OAUTH_KEY');
  });

  it('treats an empty or "*" origin list as unrestricted', () => {
    expect(parseRuntimeEnv({ MCP_ALLOWED_ORIGINS: '' }).allowedOrigins).toBeUndefined();
    expect(parseRuntimeEnv({ MCP_ALLOWED_ORIGINS: '*' }).allowedOrigins).toBeUndefined();
  });
});
