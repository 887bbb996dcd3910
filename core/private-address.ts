/**
 * Whether a host is this machine, a private network or otherwise not a public internet address: by its
 * spelling (`isPrivateHost`: a name such as `localhost`, or an address literal) and by an address a name
 * resolved to (`isPrivateAddress`). A public-looking name is only caught once resolved: see
 * private-address-resolve.ts.
 */
import { BlockList, isIP } from 'node:net';

const PRIVATE = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  // Multicast, reserved and broadcast: never a web server, and a way round a naive check.
  ['224.0.0.0', 3],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  // The IPv4-compatible block (::/96) holds :: and ::1 and the deprecated ::a.b.c.d spellings.
  ['::', 96],
  // Translation and tunnels that carry an IPv4 address a gateway would connect to: SIIT
  // (::ffff:0:a.b.c.d), local-use NAT64, 6to4 and Teredo. Never where a public spec lives.
  ['::ffff:0:0:0', 96],
  ['64:ff9b:1::', 48],
  ['2002::', 16],
  ['2001::', 32],
  // Discard-only.
  ['100::', 64],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

/** NAT64 (64:ff9b::/96) carries an IPv4 address in its last 32 bits; the gateway connects to it. */
const NAT64 = /^64:ff9b::([0-9a-f]{1,4}):([0-9a-f]{1,4})$/;

/** `address` is an IP address literal (as a resolver returns it): is it anything but a public address? */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '').toLowerCase();
  const kind = isIP(bare);
  if (kind === 4) return PRIVATE.check(bare, 'ipv4');
  if (kind !== 6) return true;
  // BlockList matches IPv4-mapped addresses (::ffff:a.b.c.d) against the IPv4 rules itself.
  if (PRIVATE.check(bare, 'ipv6')) return true;
  const canonical = new URL(`http://[${bare}]/`).hostname.slice(1, -1);
  const nat64 = NAT64.exec(canonical);
  if (nat64) {
    const high = Number.parseInt(nat64[1] ?? '0', 16);
    const low = Number.parseInt(nat64[2] ?? '0', 16);
    return PRIVATE.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, 'ipv4');
  }
  return false;
}

/** The URL's host as spelled: `localhost` names and private address literals. Names are not resolved. */
export function isPrivateHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
  return isIP(host) !== 0 && isPrivateAddress(host);
}
