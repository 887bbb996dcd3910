/**
 * Whether a URL's host is this machine or a private network by its spelling (a name such as
 * `localhost`, or an address literal in a loopback, private, link-local or unspecified range). Names
 * are not resolved: a public name that resolves to a private address is not caught here.
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
  ['192.168.0.0', 16],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  PRIVATE.addSubnet(net, prefix, 'ipv6');
}

export function isPrivateHost(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '') return true;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(host)?.[1];
  if (mapped) return PRIVATE.check(mapped, 'ipv4');
  const kind = isIP(host);
  if (kind === 4) return PRIVATE.check(host, 'ipv4');
  if (kind === 6) return PRIVATE.check(host, 'ipv6');
  return false;
}
