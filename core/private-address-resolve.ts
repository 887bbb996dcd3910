/**
 * Resolving a host once and connecting to exactly what was checked. A check on a name's addresses is
 * only worth something if the connection goes to one of those addresses: resolving again at connect
 * time would let a DNS answer change in between (DNS rebinding). `pinnedLookup` hands the checked
 * addresses to http.request in place of the system resolver, so TLS still verifies the name.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupAddress } from 'node:dns';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to (an address literal resolves to itself). */
export type HostResolver = (hostname: string) => Promise<readonly ResolvedAddress[]>;

export const systemResolver: HostResolver = async (hostname) =>
  dnsLookup(hostname, { all: true, verbatim: true });

/** The URL's host as a resolver takes it: without the brackets of an IPv6 literal. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** A `lookup` option for http.request answering only with `addresses`, already checked. */
export function pinnedLookup(addresses: readonly ResolvedAddress[]) {
  return (_hostname: string, options: { all?: boolean } | number | undefined, callback: LookupCallback) => {
    const first = addresses[0];
    if (!first) {
      callback(Object.assign(new Error('no checked address'), { code: 'ENOTFOUND' }), []);
      return;
    }
    if (typeof options === 'object' && options?.all)
      callback(
        null,
        addresses.map((a) => ({ ...a })),
      );
    else callback(null, first.address, first.family);
  };
}
