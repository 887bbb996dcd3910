/**
 * What every tool call of one app needs (ToolCallDeps, runtime/tool-call.ts): the transport,
 * the redactor of the runtime's secrets, the confirmation codec, the rate limits, and the hooks
 * of metrics, the execution log and tracing.
 */
import type { AsyncLocalStorage } from 'node:async_hooks';
import { hkdfSync, randomBytes } from 'node:crypto';
import { createRequestStateCodec } from '@modelcontextprotocol/server';
import type { CreateAppOptions } from './app.js';
import type { RuntimeEnv } from './env.js';
import type { LoadedConfig } from './loaded-config.js';
import type { Logger } from './logger.js';
import type { RuntimeMetrics } from './metrics.js';
import { createRateLimits } from './rate-limit.js';
import { createRedactor, type Redactor } from './redact.js';
import { folderDigest } from './sync/snapshot-folder.js';
import type { CallContext, ToolCallDeps } from './tool-call.js';
import { basicCredentials } from './upstream-request.js';
import { fetchTransport, nodeHttpTransport } from './upstream-transport.js';

function confirmationKey(sessionSecret: Uint8Array | undefined): Uint8Array {
  if (!sessionSecret) return randomBytes(32);
  return new Uint8Array(hkdfSync('sha256', sessionSecret, new Uint8Array(0), 'svc confirmations', 32));
}

/** Hides the upstream secret, its basic-auth pair and the OAuth clients' secrets. */
export function runtimeRedactor(env: RuntimeEnv): Redactor {
  // basic auth sends base64("user:secret"), which contains no encoding of the secret alone.
  const basicPair = env.upstreamSecret ? basicCredentials(env.upstreamSecret, env.upstreamUser) : undefined;
  const oauthSecrets = Object.entries(env.oauthClients ?? {})
    .filter(([name]) => name.includes('SECRET'))
    .map(([, value]) => value);
  return createRedactor([env.upstreamSecret, basicPair, ...oauthSecrets]);
}

/** The served folder's identity in metrics and the execution log: a digest of what it serves. */
export function servedCommit(): (config: LoadedConfig) => string {
  const digests = new WeakMap<LoadedConfig, string>();
  return (config) => {
    let commit = digests.get(config);
    if (commit === undefined) {
      commit = folderDigest(config.folder).slice(0, 12);
      digests.set(config, commit);
    }
    return commit;
  };
}

export function createToolCallDeps(options: {
  opts: CreateAppOptions;
  logger: Logger;
  redact: Redactor;
  metrics: RuntimeMetrics | undefined;
  commitOf: (config: LoadedConfig) => string;
  callContexts: AsyncLocalStorage<CallContext>;
}): ToolCallDeps {
  const { opts, logger, redact, metrics, commitOf, callContexts } = options;
  const env = opts.env;
  const deps: ToolCallDeps = {
    transport: opts.fetch ? fetchTransport(opts.fetch) : nodeHttpTransport,
    logger,
    redact,
    timeoutMs: env.upstreamTimeoutMs,
    maxResponseBytes: env.maxResponseBytes,
    now: () => performance.now(),
    ...(env.upstreamSecret ? { secret: env.upstreamSecret } : {}),
    ...(env.upstreamUser ? { user: env.upstreamUser } : {}),
    // A process-local key, or with SVC_SESSION_SECRET one every replica shares: any replica then
    // takes the answer to a confirmation another one asked for.
    confirmations: createRequestStateCodec({ key: confirmationKey(env.sessionSecret), ttlSeconds: 600 }),
    limits: createRateLimits(),
  };
  const executionLog = opts.executionLog;
  if (metrics || executionLog) {
    deps.observe = (record, args, result, loaded) => {
      metrics?.call(record);
      executionLog?.record(record, commitOf(loaded), args, result);
    };
  }
  const tracing = opts.tracing;
  if (tracing)
    deps.aroundUpstream = (tool, request, context, send) =>
      tracing.upstream(tool, request, context?.traceparent, send);
  deps.context = () => callContexts.getStore();
  return deps;
}
