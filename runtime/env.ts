/**
 * The runtime's environment (spec 5.5), parsed once at boot. Every variable has its default
 * here; an invalid value is an SvcError naming the variable, never a silent fallback.
 */
import { invalidProxyEntries } from './proxy-entries.js';
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
  /**
   * SVC_SESSION_SECRET (32+ bytes, base64 or hex), shared by every replica: 2025-era session ids
   * become signed tokens any replica can serve (runtime/session-token.ts). Never logged.
   */
  sessionSecret?: Uint8Array;
  /** SVC_CONFIG_VERSIONS, default 3: configs kept for sessions opened on them. */
  configVersions: number;
  /** SVC_SESSION_MAX_AGE seconds, default 86400: absolute lifetime of a signed session id. */
  sessionMaxAgeSec: number;
  /** SVC_SNAPSHOT_PUBLIC_KEY: PEM (or a path to one) of the control service's snapshot key. */
  snapshotPublicKey?: string;
  /** SVC_RUNTIME_ID: how this runtime names itself to the control service (default hostname-random). */
  runtimeId?: string;
  /**
   * SVC_STATE_DIR: a writable directory where the runtime keeps what must outlive a restart (the
   * last signed snapshot sequence it accepted). Unset: that is kept in memory only.
   */
  stateDir?: string;
  /**
   * SVC_TRUST_PROXY=1: the caller's address is the first X-Forwarded-For entry (a proxy in front sets it).
   * A list of proxy addresses or CIDR ranges also sets it, and fills trustedProxies.
   */
  trustProxy: boolean;
  /** SVC_TRUST_PROXY=<addr>,<cidr>…: X-Forwarded-For is read only from these peers (runtime/trusted-proxy.ts). */
  trustedProxies?: string[];
  /** SVC_METRICS_TOKEN: when set, GET /metrics needs `Authorization: Bearer <token>`. Never logged. */
  metricsToken?: string;
  /** SVC_METRICS=0 turns /metrics and the counters off (default on). */
  metrics: boolean;
  /** SVC_EXECUTION_LOG: `stdout`, `off`, or a file path (rotated by size). Unset: off. */
  executionLog?: string;
  /** SVC_EXECUTION_LOG_MAX_BYTES: rotate the execution log file past this size (default 10 MiB). */
  executionLogMaxBytes: number;
  /** SVC_LOG_ARGUMENTS=1: the execution log carries the (redacted) arguments and result. */
  logArguments: boolean;
  /** SVC_SHUTDOWN_GRACE_MS: how long SIGTERM waits for in-flight calls (default 10000). */
  shutdownGraceMs: number;
  /** The OTEL_* variables (OpenTelemetry's own names and meanings), when any is set: runtime/tracing.ts. */
  otel?: Record<string, string>;
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
  /** SVC_OAUTH_ALLOW_PRIVATE: client metadata documents on private and internal addresses accepted. */
  oauthAllowPrivate?: boolean;
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
  'SVC_SESSION_SECRET',
  'SVC_CONFIG_VERSIONS',
  'SVC_SESSION_MAX_AGE',
  'SVC_SNAPSHOT_PUBLIC_KEY',
  'SVC_RUNTIME_ID',
  'SVC_STATE_DIR',
  'SVC_TRUST_PROXY',
  'SVC_METRICS',
  'SVC_METRICS_TOKEN',
  'SVC_EXECUTION_LOG',
  'SVC_EXECUTION_LOG_MAX_BYTES',
  'SVC_LOG_ARGUMENTS',
  'SVC_SHUTDOWN_GRACE_MS',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_HEADERS',
  'OTEL_SERVICE_NAME',
  'OTEL_TRACES_SAMPLER',
  'OTEL_TRACES_SAMPLER_ARG',
  'OTEL_SDK_DISABLED',
  'MCP_AUTH',
  'SVC_MCP_TOKENS',
  'SVC_OAUTH_KEY',
  'SVC_OAUTH_CLIENT_ID',
  'SVC_OAUTH_CLIENT_SECRET',
  'SVC_OAUTH_ALLOW_LOOPBACK',
  'SVC_OAUTH_ALLOW_PRIVATE',
  'MCP_OAUTH_ISSUER',
] as const;

/**
 * Variables a folder's oauth block may name for its client (clientIdEnv/clientSecretEnv; the
 * config schema holds those names to the same rule). Read at boot, before the folder is known.
 */
const OAUTH_CLIENT_VARIABLE = /^[A-Z][A-Z0-9_]*(OAUTH|CLIENT_ID|CLIENT_SECRET)[A-Z0-9_]*$/;
const NOT_CLIENT_VARIABLES = new Set([
  'SVC_OAUTH_KEY',
  'SVC_OAUTH_ALLOW_LOOPBACK',
  'SVC_OAUTH_ALLOW_PRIVATE',
  'MCP_OAUTH_ISSUER',
]);

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

/** 1/true/yes or 0/false/no; unset → the default. */
function parseFlag(variable: string, raw: string | undefined, fallback: boolean): boolean {
  const value = nonEmpty(raw)?.toLowerCase();
  if (value === undefined) return fallback;
  if (value === '1' || value === 'true' || value === 'yes') return true;
  if (value === '0' || value === 'false' || value === 'no') return false;
  throw invalid(variable, `expected 1 or 0, got "${raw}"`);
}

/** SVC_TRUST_PROXY: 1/0 (as any flag), or the list of proxies whose X-Forwarded-For is believed. */
function parseTrustProxy(raw: string | undefined): { trustProxy: boolean; trustedProxies?: string[] } {
  const value = nonEmpty(raw);
  if (value === undefined || /^(1|0|true|false|yes|no)$/i.test(value))
    return { trustProxy: parseFlag('SVC_TRUST_PROXY', raw, false) };
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean);
  const bad = invalidProxyEntries(entries);
  if (bad.length > 0 || entries.length === 0)
    throw invalid(
      'SVC_TRUST_PROXY',
      `expected 1, 0 or a comma-separated list of proxy addresses or CIDR ranges; not an address: ${bad.join(', ')}`,
    );
  return { trustProxy: true, trustedProxies: entries };
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

/** 32+ random bytes written as hex or base64 (standard or URL-safe); the value itself is never echoed. */
function parseSessionSecret(raw: string): Uint8Array {
  const bytes = /^(?:[0-9a-fA-F]{2})+$/.test(raw)
    ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(raw)
      ? Buffer.from(raw, 'base64')
      : undefined;
  if (!bytes)
    throw invalid('SVC_SESSION_SECRET', 'expected 32 or more random bytes written as hex or base64');
  if (bytes.length < 32)
    throw invalid(
      'SVC_SESSION_SECRET',
      `expected 32 or more random bytes, got ${bytes.length} (try: openssl rand -base64 32)`,
    );
  return new Uint8Array(bytes);
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

  const versionsRaw = nonEmpty(env.SVC_CONFIG_VERSIONS);
  const configVersions =
    versionsRaw === undefined ? 3 : parseInteger('SVC_CONFIG_VERSIONS', versionsRaw, 1, 100);
  const maxAgeRaw = nonEmpty(env.SVC_SESSION_MAX_AGE);
  const sessionMaxAgeSec =
    maxAgeRaw === undefined ? 86_400 : parseInteger('SVC_SESSION_MAX_AGE', maxAgeRaw, 60, 30 * 86_400);
  const logMaxRaw = nonEmpty(env.SVC_EXECUTION_LOG_MAX_BYTES);
  const executionLogMaxBytes =
    logMaxRaw === undefined
      ? 10 * 1024 * 1024
      : parseInteger('SVC_EXECUTION_LOG_MAX_BYTES', logMaxRaw, 1024, 1 << 30);
  const graceRaw = nonEmpty(env.SVC_SHUTDOWN_GRACE_MS);
  const shutdownGraceMs =
    graceRaw === undefined ? 10_000 : parseInteger('SVC_SHUTDOWN_GRACE_MS', graceRaw, 0, 600_000);

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
    configVersions,
    sessionMaxAgeSec,
    ...parseTrustProxy(env.SVC_TRUST_PROXY),
    metrics: parseFlag('SVC_METRICS', env.SVC_METRICS, true),
    executionLogMaxBytes,
    logArguments: parseFlag('SVC_LOG_ARGUMENTS', env.SVC_LOG_ARGUMENTS, false),
    shutdownGraceMs,
    mcpAuth: mcpAuthRaw,
  };
  readFleetEnv(env, result);
  readOperationsEnv(env, result);
  readInboundAuthEnv(env, result, publicUrl);
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

/** The fleet's variables (contracts/fleet.md): portable sessions, signed snapshots, the runtime's name. */
function readFleetEnv(env: Record<string, string | undefined>, result: RuntimeEnv): void {
  const sessionSecret = nonEmpty(env.SVC_SESSION_SECRET);
  if (sessionSecret !== undefined) result.sessionSecret = parseSessionSecret(sessionSecret);
  const publicKey = nonEmpty(env.SVC_SNAPSHOT_PUBLIC_KEY);
  if (publicKey !== undefined) result.snapshotPublicKey = publicKey;
  const runtimeId = nonEmpty(env.SVC_RUNTIME_ID);
  if (runtimeId !== undefined) {
    if (!/^[\x21-\x7e]{1,200}$/.test(runtimeId))
      throw invalid('SVC_RUNTIME_ID', 'expected 1 to 200 visible ASCII characters');
    result.runtimeId = runtimeId;
  }
  const stateDir = nonEmpty(env.SVC_STATE_DIR);
  if (stateDir !== undefined) result.stateDir = stateDir;
}

/** The operations variables (contracts/operations.md) beyond the defaults already in `result`. */
function readOperationsEnv(env: Record<string, string | undefined>, result: RuntimeEnv): void {
  const metricsToken = env.SVC_METRICS_TOKEN?.trim();
  if (metricsToken) result.metricsToken = metricsToken;
  const otel: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (key.startsWith('OTEL_') && value !== undefined && value.trim() !== '') otel[key] = value;
  }
  if (Object.keys(otel).length > 0) result.otel = otel;
  const executionLog = nonEmpty(env.SVC_EXECUTION_LOG);
  if (executionLog !== undefined && executionLog !== 'off') result.executionLog = executionLog;
}

/** Inbound protection and user_oauth (contracts/oauth.md); never falls open for a missing variable. */
function readInboundAuthEnv(
  env: Record<string, string | undefined>,
  result: RuntimeEnv,
  publicUrl: string | undefined,
): void {
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
  if (result.mcpAuth === 'bearer' && !result.mcpTokenHashes) {
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
  if (nonEmpty(env.SVC_OAUTH_ALLOW_PRIVATE) === '1') result.oauthAllowPrivate = true;
  const issuer = nonEmpty(env.MCP_OAUTH_ISSUER);
  if (issuer !== undefined) {
    if (!/^https?:\/\/[^/]/.test(issuer))
      throw invalid('MCP_OAUTH_ISSUER', `"${issuer}" is not an http(s) URL`);
    result.mcpOAuthIssuer = issuer;
  }
  if (result.mcpAuth === 'oauth') {
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
}
