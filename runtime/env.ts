/**
 * The runtime's environment (spec 5.5), parsed once at boot. Every variable has its default
 * here; an invalid value is an SvcError naming the variable, never a silent fallback.
 */
import { SvcError } from '../core/svc-error.js';

export interface RuntimeEnv {
  /** SVC_FOLDER_PATH: the server folder to serve. */
  folderPath?: string;
  /** SVC_BUNDLE_PATH: deprecated single-file bundle (`{server, files}`), used when no folder is given. */
  bundlePath?: string;
  /** SVC_RUNTIME_MODE: only `standalone` exists. */
  mode: 'standalone';
  /** SVC_UPSTREAM_SECRET: the shared api_key / bearer / basic credential. Never logged. */
  upstreamSecret?: string;
  /** SVC_UPSTREAM_USER: the user name of basic auth (else SVC_UPSTREAM_SECRET is user:password). */
  upstreamUser?: string;
  /** MCP_RUNTIME_PORT, default 3002. 0 picks a free port (tests). */
  port: number;
  /** MCP_RUNTIME_HOST, default 127.0.0.1 (the Dockerfile sets 0.0.0.0). */
  host: string;
  /** MCP_RUNTIME_PUBLIC_URL: the server's public origin; same-origin requests are judged against it. */
  publicUrl?: string;
  /** MCP_ALLOWED_ORIGINS (comma-separated origins). Unset → every origin accepted, with a boot warning. */
  allowedOrigins?: string[];
  /** SVC_SYNC_URL: control service origin to poll (a later issue). */
  syncUrl?: string;
  /** SVC_DEPLOY_TOKEN: required when SVC_SYNC_URL is set. */
  deployToken?: string;
  /** SVC_SYNC_INTERVAL seconds, default 60, minimum 10. */
  syncIntervalSec: number;
  /** SVC_UPSTREAM_TIMEOUT_MS, default 30000. */
  upstreamTimeoutMs: number;
  /** SVC_MAX_RESPONSE_BYTES, default 10 MiB. */
  maxResponseBytes: number;
  /** MCP_AUTH: inbound protection of /mcp (contracts/oauth.md). Default none. */
  mcpAuth: 'none' | 'bearer' | 'oauth';
  /** SVC_MCP_TOKENS: SHA-256 hashes (lower-case hex) of the tokens MCP clients present (MCP_AUTH=bearer). */
  mcpTokenHashes?: string[];
  /** SVC_OAUTH_KEY: 32 bytes (base64) sealing what the OAuth facade issues. Never logged. */
  oauthKey?: Uint8Array;
  /** SVC_OAUTH_CLIENT_ID / SVC_OAUTH_CLIENT_SECRET, or the variables config.yaml oauth names. Never logged. */
  oauthClients?: Readonly<Record<string, string>>;
  /** MCP_OAUTH_ISSUER: the OpenID provider people sign in at when MCP_AUTH=oauth. */
  mcpOAuthIssuer?: string;
  /** SVC_OAUTH_ALLOW_LOOPBACK: client metadata documents and redirects on http loopback accepted (tests, local use). */
  oauthAllowLoopback?: boolean;
}

/** Every variable parseRuntimeEnv reads (the exported folder's .env.example must not name others). */
export const RUNTIME_ENV_VARIABLES = [
  'SVC_FOLDER_PATH',
  'SVC_BUNDLE_PATH',
  'FLOWCP_BUNDLE_PATH',
  'SVC_RUNTIME_MODE',
  'SVC_UPSTREAM_SECRET',
  'SVC_UPSTREAM_USER',
  'MCP_RUNTIME_PORT',
  'MCP_RUNTIME_HOST',
  'MCP_RUNTIME_PUBLIC_URL',
  'MCP_ALLOWED_ORIGINS',
  'SVC_SYNC_URL',
  'SVC_DEPLOY_TOKEN',
  'SVC_SYNC_INTERVAL',
  'SVC_UPSTREAM_TIMEOUT_MS',
  'SVC_MAX_RESPONSE_BYTES',
  'MCP_AUTH',
  'SVC_MCP_TOKENS',
  'SVC_OAUTH_KEY',
  'SVC_OAUTH_CLIENT_ID',
  'SVC_OAUTH_CLIENT_SECRET',
  'SVC_OAUTH_ALLOW_LOOPBACK',
  'MCP_OAUTH_ISSUER',
] as const;

/**
 * Variables a folder's oauth block may name for its client (clientIdEnv/clientSecretEnv; the
 * config schema holds those names to the same rule). Read at boot, before the folder is known.
 */
const OAUTH_CLIENT_VARIABLE = /^[A-Z][A-Z0-9_]*(OAUTH|CLIENT_ID|CLIENT_SECRET)[A-Z0-9_]*$/;
const NOT_CLIENT_VARIABLES = new Set(['SVC_OAUTH_KEY', 'SVC_OAUTH_ALLOW_LOOPBACK', 'MCP_OAUTH_ISSUER']);

export const DEFAULT_PORT = 3002;
export const DEFAULT_HOST = '127.0.0.1';

function invalid(variable: string, message: string): SvcError {
  return new SvcError('USAGE', `${variable}: ${message}`, { place: { field: variable } });
}

function nonEmpty(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed ? trimmed : undefined;
}

function parseInteger(variable: string, raw: string, min: number, max: number): number {
  if (!/^\d+$/.test(raw)) throw invalid(variable, `expected a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw invalid(variable, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** Parses an origin the way browsers send it: scheme://host[:port], no path. */
export function normalizeOrigin(variable: string, raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(variable, `"${raw}" is not an origin like https://app.example.com`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalid(variable, `"${raw}" must use http or https`);
  }
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash || url.username) {
    throw invalid(variable, `"${raw}" must be an origin only (scheme, host, port), without a path`);
  }
  return url.origin;
}

/** Throws SvcError (code USAGE, place.field = the variable) when a variable is invalid. */
export function parseRuntimeEnv(env: Record<string, string | undefined>): RuntimeEnv {
  const mode = nonEmpty(env.SVC_RUNTIME_MODE) ?? 'standalone';
  if (mode !== 'standalone')
    throw invalid('SVC_RUNTIME_MODE', `only "standalone" is supported, got "${mode}"`);

  const portRaw = nonEmpty(env.MCP_RUNTIME_PORT);
  const port = portRaw === undefined ? DEFAULT_PORT : parseInteger('MCP_RUNTIME_PORT', portRaw, 0, 65535);

  const publicRaw = nonEmpty(env.MCP_RUNTIME_PUBLIC_URL);
  let publicUrl: string | undefined;
  if (publicRaw !== undefined) {
    try {
      const url = new URL(publicRaw);
      if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('scheme');
      publicUrl = url.href.replace(/\/$/, '');
    } catch {
      throw invalid('MCP_RUNTIME_PUBLIC_URL', `"${publicRaw}" is not an http(s) URL`);
    }
  }

  const originsRaw = env.MCP_ALLOWED_ORIGINS;
  let allowedOrigins: string[] | undefined;
  if (originsRaw !== undefined && originsRaw.trim() !== '') {
    const list = originsRaw
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
    if (list.includes('*')) allowedOrigins = undefined;
    else allowedOrigins = [...new Set(list.map((o) => normalizeOrigin('MCP_ALLOWED_ORIGINS', o)))].sort();
  }

  const syncUrl = nonEmpty(env.SVC_SYNC_URL);
  const deployToken = nonEmpty(env.SVC_DEPLOY_TOKEN);
  if (syncUrl !== undefined) {
    if (!/^https?:\/\//.test(syncUrl)) throw invalid('SVC_SYNC_URL', `"${syncUrl}" is not an http(s) URL`);
    if (deployToken === undefined) {
      throw new SvcError('CONFIG_MISSING_ENV', 'SVC_DEPLOY_TOKEN is required when SVC_SYNC_URL is set', {
        place: { field: 'SVC_DEPLOY_TOKEN' },
      });
    }
  }
  const intervalRaw = nonEmpty(env.SVC_SYNC_INTERVAL);
  const syncIntervalSec =
    intervalRaw === undefined ? 60 : parseInteger('SVC_SYNC_INTERVAL', intervalRaw, 10, 86_400);

  const timeoutRaw = nonEmpty(env.SVC_UPSTREAM_TIMEOUT_MS);
  const upstreamTimeoutMs =
    timeoutRaw === undefined ? 30_000 : parseInteger('SVC_UPSTREAM_TIMEOUT_MS', timeoutRaw, 1, 600_000);
  const capRaw = nonEmpty(env.SVC_MAX_RESPONSE_BYTES);
  const maxResponseBytes =
    capRaw === undefined ? 10 * 1024 * 1024 : parseInteger('SVC_MAX_RESPONSE_BYTES', capRaw, 1, 1 << 30);

  const mcpAuthRaw = nonEmpty(env.MCP_AUTH) ?? 'none';
  if (mcpAuthRaw !== 'none' && mcpAuthRaw !== 'bearer' && mcpAuthRaw !== 'oauth') {
    throw invalid('MCP_AUTH', `must be none, bearer or oauth, got "${mcpAuthRaw}"`);
  }
  const result: RuntimeEnv = {
    mode: 'standalone',
    port,
    host: nonEmpty(env.MCP_RUNTIME_HOST) ?? DEFAULT_HOST,
    syncIntervalSec,
    upstreamTimeoutMs,
    maxResponseBytes,
    mcpAuth: mcpAuthRaw,
  };
  const tokensRaw = nonEmpty(env.SVC_MCP_TOKENS);
  if (tokensRaw !== undefined) {
    const hashes = tokensRaw
      .split(',')
      .map((t) => t.trim().toLowerCase())
      .filter((t) => t !== '');
    // Said without the value: a token pasted here by mistake must not reach a log.
    if (hashes.some((h) => !/^[0-9a-f]{64}$/.test(h)))
      throw invalid('SVC_MCP_TOKENS', 'expected comma-separated SHA-256 hashes (64 hex digits each)');
    result.mcpTokenHashes = hashes;
  }
  if (mcpAuthRaw === 'bearer' && !result.mcpTokenHashes) {
    throw new SvcError('CONFIG_MISSING_ENV', 'SVC_MCP_TOKENS is required when MCP_AUTH=bearer', {
      place: { field: 'SVC_MCP_TOKENS' },
    });
  }
  const keyRaw = nonEmpty(env.SVC_OAUTH_KEY);
  if (keyRaw !== undefined) {
    const key = Buffer.from(keyRaw, 'base64');
    if (key.length !== 32) throw invalid('SVC_OAUTH_KEY', 'expected 32 random bytes, base64-encoded');
    result.oauthKey = new Uint8Array(key);
  }
  const clients: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (!OAUTH_CLIENT_VARIABLE.test(name) || NOT_CLIENT_VARIABLES.has(name)) continue;
    const trimmed = value?.trim();
    if (trimmed) clients[name] = trimmed;
  }
  if (Object.keys(clients).length > 0) result.oauthClients = clients;
  if (nonEmpty(env.SVC_OAUTH_ALLOW_LOOPBACK) === '1') result.oauthAllowLoopback = true;
  const issuer = nonEmpty(env.MCP_OAUTH_ISSUER);
  if (issuer !== undefined) {
    if (!/^https?:\/\/[^/]/.test(issuer))
      throw invalid('MCP_OAUTH_ISSUER', `"${issuer}" is not an http(s) URL`);
    result.mcpOAuthIssuer = issuer;
  }
  if (mcpAuthRaw === 'oauth') {
    // The endpoint must never fall open because a variable is missing.
    const missing = [
      ['MCP_OAUTH_ISSUER', result.mcpOAuthIssuer],
      ['SVC_OAUTH_KEY', result.oauthKey],
      ['SVC_OAUTH_CLIENT_ID', clients.SVC_OAUTH_CLIENT_ID],
      ['MCP_RUNTIME_PUBLIC_URL', publicUrl],
    ].filter(([, value]) => value === undefined);
    if (missing.length > 0) {
      const names = missing.map(([name]) => name as string);
      throw new SvcError('CONFIG_MISSING_ENV', `MCP_AUTH=oauth needs ${names.join(', ')}`, {
        place: { field: names[0]! },
      });
    }
  }
  const folderPath = nonEmpty(env.SVC_FOLDER_PATH);
  if (folderPath !== undefined) result.folderPath = folderPath;
  const bundlePath = nonEmpty(env.SVC_BUNDLE_PATH) ?? nonEmpty(env.FLOWCP_BUNDLE_PATH);
  if (bundlePath !== undefined) result.bundlePath = bundlePath;
  // The secret is kept verbatim (no trim of inner content), but surrounding whitespace from .env files is not part of it.
  const secret = env.SVC_UPSTREAM_SECRET?.trim();
  if (secret) result.upstreamSecret = secret;
  const user = nonEmpty(env.SVC_UPSTREAM_USER);
  if (user !== undefined) result.upstreamUser = user;
  if (publicUrl !== undefined) result.publicUrl = publicUrl;
  if (allowedOrigins !== undefined) result.allowedOrigins = allowedOrigins;
  if (syncUrl !== undefined) result.syncUrl = syncUrl;
  if (deployToken !== undefined) result.deployToken = deployToken;
  return result;
}
