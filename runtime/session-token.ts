/**
 * Portable 2025-era session ids (SVC_SESSION_SECRET): a session id is a token signed with
 * HMAC-SHA256 under the secret every replica shares, and it says everything a replica needs to
 * serve the session without having seen its `initialize`: the config it started with (a
 * content digest, the same on every replica), the /mcp path, the absolute expiry, and the
 * initialize parameters the SDK keeps per session (the protocol version asked for, the client's
 * capabilities and name), replayed to rebuild the session. It holds no secret: anyone may read it,
 * nobody without the key can forge or alter one.
 *
 * Form: `s1.<base64url(JSON claims)>.<base64url(HMAC over "s1.<claims>")>`, only visible ASCII,
 * as the spec requires of a session id.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export interface SessionClaims {
  /** Digest prefix of the config the session started with (LoadedConfig.digest). */
  d: string;
  /** The /mcp path key the session belongs to ('' for /mcp, else the server id). */
  p: string;
  /** Issued at, seconds since the epoch. */
  i: number;
  /** Expires at (absolute), seconds since the epoch. */
  e: number;
  /**
   * Who opened the session (SHA-256 of CallContext.principal, base64url, 22 chars), when the
   * inbound gate authenticated someone: every replica refuses the session to anyone else.
   */
  u?: string;
  /** Random part: two sessions opened in the same second differ. */
  n: string;
  /** The initialize params replayed to rebuild the session on another replica. */
  init: { protocolVersion: string; capabilities: Record<string, unknown>; clientInfo: ClientInfo };
}

interface ClientInfo {
  name: string;
  version: string;
}

const PREFIX = 's1.';
/** Capabilities kept when the client declared many: the ones a server acts on. */
const ESSENTIAL_CAPABILITIES = ['elicitation', 'sampling', 'roots'];
const MAX_CAPABILITY_CHARS = 1024;

export interface SessionTokens {
  issue(claims: Omit<SessionClaims, 'n' | 'i' | 'e'>, nowMs: number): string;
  /** The claims of a token this fleet signed, or undefined (forged, altered, malformed). Expiry is the caller's. */
  verify(token: string): SessionClaims | undefined;
  readonly maxAgeSec: number;
}

function mac(key: Uint8Array, text: string): Buffer {
  return createHmac('sha256', key).update(text).digest();
}

/** The initialize params worth carrying: version, capabilities (trimmed when large), client name. */
export function initClaims(params: unknown): SessionClaims['init'] {
  const p = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  const info = (typeof p.clientInfo === 'object' && p.clientInfo !== null ? p.clientInfo : {}) as Record<
    string,
    unknown
  >;
  let capabilities =
    typeof p.capabilities === 'object' && p.capabilities !== null && !Array.isArray(p.capabilities)
      ? (p.capabilities as Record<string, unknown>)
      : {};
  if (JSON.stringify(capabilities).length > MAX_CAPABILITY_CHARS) {
    const kept: Record<string, unknown> = {};
    for (const key of ESSENTIAL_CAPABILITIES) if (key in capabilities) kept[key] = capabilities[key];
    capabilities = JSON.stringify(kept).length > MAX_CAPABILITY_CHARS ? {} : kept;
  }
  return {
    protocolVersion: typeof p.protocolVersion === 'string' ? p.protocolVersion.slice(0, 32) : '',
    capabilities,
    clientInfo: {
      name: typeof info.name === 'string' ? info.name.slice(0, 128) : 'unknown',
      version: typeof info.version === 'string' ? info.version.slice(0, 64) : '0',
    },
  };
}

export function createSessionTokens(key: Uint8Array, maxAgeSec: number): SessionTokens {
  return {
    maxAgeSec,
    issue(claims, nowMs) {
      const issued = Math.floor(nowMs / 1000);
      const full: SessionClaims = {
        ...claims,
        i: issued,
        e: issued + maxAgeSec,
        n: randomBytes(12).toString('base64url'),
      };
      const body = `${PREFIX}${Buffer.from(JSON.stringify(full)).toString('base64url')}`;
      return `${body}.${mac(key, body).toString('base64url')}`;
    },
    verify(token) {
      if (!token.startsWith(PREFIX) || token.length > 4096) return undefined;
      const dot = token.lastIndexOf('.');
      if (dot <= PREFIX.length) return undefined;
      const body = token.slice(0, dot);
      const given = Buffer.from(token.slice(dot + 1), 'base64url');
      const expected = mac(key, body);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
      try {
        const claims = JSON.parse(Buffer.from(body.slice(PREFIX.length), 'base64url').toString('utf8'));
        if (
          typeof claims?.d !== 'string' ||
          typeof claims.p !== 'string' ||
          typeof claims.e !== 'number' ||
          typeof claims.init?.protocolVersion !== 'string'
        )
          return undefined;
        return claims as SessionClaims;
      } catch {
        return undefined;
      }
    },
  };
}
