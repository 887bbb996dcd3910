/**
 * The two configs written beside worker.mjs: `wrangler.toml` to deploy it to Cloudflare, and
 * `workerd.capnp` to run it locally under the open-source runtime (`npx workerd serve`), whose
 * HTTP socket is named `http` (contracts/fleet.md). The runtime needs Node's APIs (node:crypto,
 * node:async_hooks, Buffer): `nodejs_compat`, on by default from the compatibility date 2026-08-04.
 */
import { RUNTIME_ENV_VARIABLES } from '../../runtime/env.js';

/**
 * A date the pinned workerd supports (a Worker's behaviour is frozen at its compatibility date),
 * and after 2026-08-04, when nodejs_compat became the default.
 */
export const COMPATIBILITY_DATE = '2026-11-01';

/** Variables that mean nothing to a Worker (a folder path, a port, a log file). */
const NODE_ONLY = new Set([
  'SVC_FOLDER_PATH',
  'SVC_BUNDLE_PATH',
  'FLOWCP_BUNDLE_PATH',
  'MCP_RUNTIME_PORT',
  'SVC_EXECUTION_LOG',
  'SVC_EXECUTION_LOG_MAX_BYTES',
  'SVC_SHUTDOWN_GRACE_MS',
]);

export const WORKER_VARIABLES: readonly string[] = RUNTIME_ENV_VARIABLES.filter(
  (name) => !NODE_ONLY.has(name),
);

/** A Worker name: lower-case letters, digits and dashes, at most 63 characters. */
export function workerName(serverId: string): string {
  const name = serverId
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
  return name || 'svc-worker';
}

export function wranglerToml(serverId: string): string {
  return `# Deploy: npx wrangler deploy (from this directory). Written by svc worker build.
name = "${workerName(serverId)}"
main = "worker.mjs"
compatibility_date = "${COMPATIBILITY_DATE}"
# worker.mjs is bundled already (the folder, its validators and the runtime): upload it as it is.
no_bundle = true

# Secrets, never here: npx wrangler secret put SVC_UPSTREAM_SECRET
# and, so that every isolate serves every 2025-11-25 session: npx wrangler secret put SVC_SESSION_SECRET
[vars]
# MCP_RUNTIME_PUBLIC_URL = "https://${workerName(serverId)}.example.workers.dev"
# MCP_ALLOWED_ORIGINS = "https://app.example.com"
`;
}

export function workerdConfig(): string {
  const bindings = WORKER_VARIABLES.map((name) => `    (name = "${name}", fromEnvironment = "${name}"),`);
  return `# Run locally: npx workerd serve workerd.capnp --socket-addr http=127.0.0.1:8787
# Variables (SVC_UPSTREAM_SECRET, ...) are read from workerd's environment. Written by svc worker build.
using Workerd = import "/workerd/workerd.capnp";

const config :Workerd.Config = (
  services = [
    (name = "main", worker = .svcWorker),
    # Upstream calls: this local config lets the Worker reach private and loopback addresses too.
    (name = "upstream", network = (allow = ["public", "private", "local"], tlsOptions = (trustBrowserCas = true))),
  ],
  sockets = [(name = "http", address = "127.0.0.1:8787", http = (), service = "main")],
);

const svcWorker :Workerd.Worker = (
  modules = [(name = "worker.mjs", esModule = embed "worker.mjs")],
  compatibilityDate = "${COMPATIBILITY_DATE}",
  globalOutbound = "upstream",
  bindings = [
${bindings.join('\n')}
  ],
);
`;
}
