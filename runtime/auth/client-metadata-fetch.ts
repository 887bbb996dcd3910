/**
 * Fetching a client ID metadata document (CIMD): the client_id is a URL anyone may write, so
 * the runtime must not become a way into its own network. The host is resolved once; when any
 * address is loopback, private, link-local or otherwise internal (core/private-address.ts, the
 * rule the importer and the control service use), the document is not fetched; otherwise the
 * connection goes to the address checked (no second DNS answer: DNS rebinding). No redirects,
 * 64 KiB, 5 s for the whole fetch.
 *
 * Opt-ins: SVC_OAUTH_ALLOW_LOOPBACK=1 lets loopback addresses (and http on a loopback host)
 * through, for tests and local use; SVC_OAUTH_ALLOW_PRIVATE=1 lets every internal address
 * through (MCP clients publishing their documents on a private network).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isPrivateAddress } from '../../core/private-address.js';
import {
  type HostResolver,
  hostOf,
  pinnedLookup,
  type ResolvedAddress,
  systemResolver,
} from '../../core/private-address-resolve.js';
import { isLoopbackHost } from './boot-checks.js';

export const CIMD_MAX_BYTES = 64 * 1024;
const CIMD_TIMEOUT_MS = 5000;

export interface AddressRule {
  /** SVC_OAUTH_ALLOW_LOOPBACK=1: loopback addresses, and http on a loopback host. */
  allowLoopback: boolean;
  /** SVC_OAUTH_ALLOW_PRIVATE=1: every loopback, private or internal address. */
  allowPrivate: boolean;
  resolver?: HostResolver;
}

/** The GET itself, to `addresses` only; the body text, or undefined (not 200, too large, too slow). */
export type DocumentGet = (url: URL, addresses: readonly ResolvedAddress[]) => Promise<string | undefined>;

/** Why `url` may not be fetched as a client metadata document, or the addresses it may be fetched at. */
export async function checkDocumentUrl(
  url: URL,
  rule: AddressRule,
): Promise<
  { ok: true; addresses: readonly ResolvedAddress[] } | { ok: false; reason: string; internal?: true }
> {
  const httpAllowed = rule.allowLoopback && isLoopbackHost(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && httpAllowed))
    return { ok: false, reason: 'not an https URL' };
  let addresses: readonly ResolvedAddress[];
  try {
    addresses = await (rule.resolver ?? systemResolver)(hostOf(url));
  } catch (error) {
    return {
      ok: false,
      reason: `the host did not resolve (${(error as NodeJS.ErrnoException)?.code ?? 'error'})`,
    };
  }
  if (addresses.length === 0) return { ok: false, reason: 'the host has no address' };
  if (!rule.allowPrivate) {
    const internal = addresses.find(
      (a) => isPrivateAddress(a.address) && !(rule.allowLoopback && isLoopbackHost(a.address)),
    );
    if (internal)
      return {
        ok: false,
        reason: `the host resolves to ${internal.address}, a loopback, private or internal address (SVC_OAUTH_ALLOW_PRIVATE=1 allows those)`,
        internal: true,
      };
  }
  return { ok: true, addresses };
}

/** The real GET: pinned to the checked addresses, no redirect followed, capped in size and time. */
export const pinnedDocumentGet: DocumentGet = (url, addresses) =>
  new Promise((resolve) => {
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const request = send(url, {
      method: 'GET',
      headers: { accept: 'application/json' },
      lookup: pinnedLookup(addresses),
      signal: AbortSignal.timeout(CIMD_TIMEOUT_MS),
    });
    request.on('error', () => resolve(undefined));
    request.on('response', (response: IncomingMessage) => {
      if (response.statusCode !== 200) {
        response.destroy();
        resolve(undefined);
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > CIMD_MAX_BYTES) {
          response.destroy();
          resolve(undefined);
        } else chunks.push(chunk);
      });
      response.on('error', () => resolve(undefined));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    });
    request.end();
  });
