/**
 * Who a request comes from, behind a load balancer (SVC_TRUST_PROXY): the address session caps
 * count and rate limits key on. All clients behind haproxy share its address, so without this a
 * per-client cap is one cap for everyone.
 *
 * - unset or 0: the socket's address; X-Forwarded-For is ignored (a client can send any).
 * - 1: the first X-Forwarded-For entry, whoever sent it (only when every request comes through
 *   a proxy that sets it; a client reaching the runtime directly chooses its own address).
 * - a comma-separated list of proxy addresses or CIDR ranges (`10.0.0.5,10.1.0.0/16`):
 *   X-Forwarded-For is read only on a request whose socket address is in the list, and the client
 *   is the rightmost entry not in the list (the address the trusted proxy itself saw), so entries
 *   a client wrote before it cannot choose its identity.
 */
import { BlockList, isIP } from 'node:net';
import { parseProxyEntry } from './proxy-entries.js';

/** ::ffff:10.0.0.5 (an IPv4 peer on a dual-stack socket) is 10.0.0.5. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function blockList(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList();
  for (const entry of entries) {
    const parsed = parseProxyEntry(entry);
    if (!parsed) continue;
    const type = parsed.family === 4 ? 'ipv4' : 'ipv6';
    if (parsed.prefix === undefined) list.addAddress(parsed.address, type);
    else list.addSubnet(parsed.address, parsed.prefix, type);
  }
  return (address) => {
    const a = plain(address);
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 4 ? 'ipv4' : 'ipv6');
  };
}

export type ClientAddress = (
  remoteAddress: string | undefined,
  forwardedFor: string | null | undefined,
) => string;

export function clientAddressOf(trustProxy: boolean, trustedProxies?: readonly string[]): ClientAddress {
  if (!trustProxy) return (remote) => remote ?? '';
  if (!trustedProxies) {
    return (remote, forwardedFor) => forwardedFor?.split(',')[0]?.trim() || (remote ?? '');
  }
  const trusted = blockList(trustedProxies);
  return (remote, forwardedFor) => {
    if (!remote || !trusted(remote) || !forwardedFor) return remote ?? '';
    const hops = forwardedFor.split(',').map((h) => h.trim());
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (!isIP(plain(hop))) return remote;
      if (!trusted(hop)) return plain(hop);
    }
    return remote;
  };
}
