/**
 * The MCP clients the facade knows, without a database:
 * - a client ID metadata document (CIMD, draft-ietf-oauth-client-id-metadata-document): the
 *   client_id is an https URL whose JSON document names the client's redirect URIs; the runtime
 *   fetches it (client-metadata-fetch.ts: never from a loopback, private or internal address
 *   unless the operator allows it; no redirects, 64 KiB, 5 s) and keeps it 5 min;
 * - a dynamically registered client (RFC 7591): the registration is sealed into the client_id
 *   itself (`svc-dcr:<JWE>`), so it is stored nowhere and every replica reads it.
 * Redirect URIs: https, or http on a loopback host (RFC 8252 §7.3, native apps).
 */
import type { Logger } from '../logger.js';
import { isLoopbackHost } from './boot-checks.js';
import {
  type AddressRule,
  checkDocumentUrl,
  type DocumentGet,
  pinnedDocumentGet,
} from './client-metadata-fetch.js';
import type { Sealer } from './seal.js';

export interface KnownClient {
  clientId: string;
  redirectUris: string[];
  name?: string;
}

export const REGISTERED_PREFIX = 'svc-dcr:';
const CIMD_TTL_MS = 5 * 60 * 1000;
const REGISTRATION_TTL_S = 365 * 24 * 3600;

export function acceptableRedirectUri(raw: unknown): raw is string {
  if (typeof raw !== 'string' || raw.length > 2000) return false;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (url.hash) return false;
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && isLoopbackHost(url.hostname);
}

export interface ClientRegistry {
  resolve(clientId: string): Promise<KnownClient | undefined>;
  register(
    body: unknown,
  ): Promise<{ ok: true; client: Record<string, unknown> } | { ok: false; error: string }>;
}

export interface ClientRegistryOptions extends AddressRule {
  sealer: Sealer;
  now: () => number;
  /** Where a document URL refused by the address rule is reported (the person sees "unknown client"). */
  logger?: Logger;
  /** The document GET (default pinnedDocumentGet); tests observe it. */
  get?: DocumentGet;
}

/** The client a metadata document describes, or undefined when it does not describe one for `clientId`. */
function clientOfDocument(clientId: string, text: string): KnownClient | undefined {
  try {
    const doc = JSON.parse(text) as { client_id?: unknown; redirect_uris?: unknown; client_name?: unknown };
    if (doc.client_id !== clientId || !Array.isArray(doc.redirect_uris) || doc.redirect_uris.length === 0)
      return undefined;
    if (!doc.redirect_uris.every(acceptableRedirectUri)) return undefined;
    return {
      clientId,
      redirectUris: doc.redirect_uris as string[],
      ...(typeof doc.client_name === 'string' ? { name: doc.client_name } : {}),
    };
  } catch {
    return undefined;
  }
}

export function createClientRegistry(opts: ClientRegistryOptions): ClientRegistry {
  const get = opts.get ?? pinnedDocumentGet;
  const cache = new Map<string, { at: number; client: KnownClient | undefined }>();

  async function fetchDocument(clientId: string): Promise<KnownClient | undefined> {
    let url: URL;
    try {
      url = new URL(clientId);
    } catch {
      return undefined;
    }
    if (url.pathname === '/' || url.hash || url.username) return undefined;
    const checked = await checkDocumentUrl(url, opts);
    if (!checked.ok) {
      // Only the address rule is worth a line: a name that does not resolve is just an unknown client.
      if (checked.internal)
        opts.logger?.log('warn', 'oauth_client_metadata_refused', { host: url.host, reason: checked.reason });
      return undefined;
    }
    const text = await get(url, checked.addresses);
    return text === undefined ? undefined : clientOfDocument(clientId, text);
  }

  return {
    async resolve(clientId) {
      if (clientId.startsWith(REGISTERED_PREFIX)) {
        const claims = await opts.sealer.open('client', clientId.slice(REGISTERED_PREFIX.length));
        if (!claims || !Array.isArray(claims.ru)) return undefined;
        return {
          clientId,
          redirectUris: claims.ru as string[],
          ...(typeof claims.nm === 'string' ? { name: claims.nm } : {}),
        };
      }
      const hit = cache.get(clientId);
      if (hit && opts.now() - hit.at < CIMD_TTL_MS) return hit.client;
      const client = await fetchDocument(clientId);
      if (cache.size > 1000) cache.clear();
      cache.set(clientId, { at: opts.now(), client });
      return client;
    },
    async register(body) {
      if (typeof body !== 'object' || body === null)
        return { ok: false, error: 'the body must be a JSON object' };
      const meta = body as {
        redirect_uris?: unknown;
        client_name?: unknown;
        token_endpoint_auth_method?: unknown;
      };
      const uris = meta.redirect_uris;
      if (!Array.isArray(uris) || uris.length === 0 || uris.length > 10 || !uris.every(acceptableRedirectUri))
        return {
          ok: false,
          error: 'redirect_uris must list 1 to 10 https URLs, or http URLs on a loopback host',
        };
      const name = typeof meta.client_name === 'string' ? meta.client_name.slice(0, 200) : undefined;
      const sealed = await opts.sealer.seal(
        'client',
        { ru: uris, ...(name ? { nm: name } : {}) },
        REGISTRATION_TTL_S,
      );
      const issuedAt = Math.floor(opts.now() / 1000);
      return {
        ok: true,
        client: {
          client_id: `${REGISTERED_PREFIX}${sealed}`,
          client_id_issued_at: issuedAt,
          redirect_uris: uris,
          ...(name ? { client_name: name } : {}),
          // Public clients only: PKCE binds the code, there is no client secret to keep.
          token_endpoint_auth_method: 'none',
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
        },
      };
    },
  };
}
