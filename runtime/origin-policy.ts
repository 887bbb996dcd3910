/**
 * Origin validation (spec 5.5) and the DNS-rebinding Host check. "Same origin" is judged
 * against the runtime's own configured origins (MCP_RUNTIME_PUBLIC_URL, the listen address),
 * never against the request's Host header, which an attacker controls. Pure and total: any
 * header value, however malformed, yields a decision, never an exception.
 */
export interface OriginPolicy {
  /** Origins that are the runtime itself: always allowed. */
  selfOrigins: ReadonlySet<string>;
  /** MCP_ALLOWED_ORIGINS; undefined = every origin accepted. */
  allowedOrigins?: ReadonlySet<string>;
  /** Host names a request may address; undefined = no Host check (not bound to loopback only). */
  allowedHostnames?: ReadonlySet<string>;
}

export type OriginDecision = { ok: true; corsOrigin?: string } | { ok: false; status: 403; reason: string };

const LOOPBACK_NAMES = ['localhost', '127.0.0.1', '[::1]'];

export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

export function buildOriginPolicy(opts: {
  listenHost: string;
  port: number;
  publicUrl?: string;
  allowedOrigins?: readonly string[];
}): OriginPolicy {
  const self = new Set<string>();
  const hostnames = new Set<string>();
  const loopbackOnly = isLoopbackHost(opts.listenHost);
  const wildcard = opts.listenHost === '0.0.0.0' || opts.listenHost === '::' || opts.listenHost === '';
  if (loopbackOnly || wildcard) {
    for (const name of LOOPBACK_NAMES) {
      self.add(`http://${name}:${opts.port}`);
      hostnames.add(name);
    }
  }
  if (!loopbackOnly && !wildcard) {
    const h = opts.listenHost.includes(':') ? `[${opts.listenHost}]` : opts.listenHost;
    self.add(`http://${h}:${opts.port}`);
  }
  if (loopbackOnly && opts.listenHost.startsWith('127.')) hostnames.add(opts.listenHost);
  if (opts.publicUrl) {
    try {
      const url = new URL(opts.publicUrl);
      self.add(url.origin);
      hostnames.add(url.hostname);
    } catch {
      // parseRuntimeEnv already refused an invalid public URL.
    }
  }
  const policy: OriginPolicy = { selfOrigins: self };
  if (opts.allowedOrigins) policy.allowedOrigins = new Set(opts.allowedOrigins);
  if (loopbackOnly) policy.allowedHostnames = hostnames;
  return policy;
}

// Clients send the same Host header on every request: it is parsed once, not once per request.
// Bounded, since any client can send any Host.
const parsedHosts = new Map<string, string | undefined>();
const MAX_CACHED_HOSTS = 64;

function hostnameOf(hostHeader: string): string | undefined {
  if (parsedHosts.has(hostHeader)) return parsedHosts.get(hostHeader);
  const hostname = parseHostname(hostHeader);
  if (parsedHosts.size >= MAX_CACHED_HOSTS) parsedHosts.clear();
  parsedHosts.set(hostHeader, hostname);
  return hostname;
}

function parseHostname(hostHeader: string): string | undefined {
  try {
    const url = new URL(`http://${hostHeader}`);
    if (url.username || url.password || url.pathname !== '/' || url.search || url.hash) return undefined;
    return url.hostname;
  } catch {
    return undefined;
  }
}

export function checkOrigin(
  policy: OriginPolicy,
  origin: string | undefined,
  host: string | undefined,
): OriginDecision {
  if (policy.allowedHostnames) {
    const hostname = host === undefined ? undefined : hostnameOf(host);
    if (hostname === undefined || !policy.allowedHostnames.has(hostname)) {
      return { ok: false, status: 403, reason: 'Host not allowed' };
    }
  }
  if (origin === undefined) return { ok: true };
  let normalized: string;
  try {
    const url = new URL(origin);
    if (url.origin === 'null') throw new Error('opaque');
    normalized = url.origin;
  } catch {
    return { ok: false, status: 403, reason: 'Origin not allowed' };
  }
  if (policy.selfOrigins.has(normalized)) return { ok: true, corsOrigin: normalized };
  if (!policy.allowedOrigins || policy.allowedOrigins.has(normalized))
    return { ok: true, corsOrigin: normalized };
  return { ok: false, status: 403, reason: 'Origin not allowed' };
}
