/**
 * The entries of an SVC_TRUST_PROXY list: an IPv4 or IPv6 address, or a CIDR range. Pure (no
 * node:net), so reading the variables stays portable; runtime/trusted-proxy.ts matches them.
 */
const IPV4 = /^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/;

/** 4, 6, or 0 when the text is not an address. */
export function addressFamily(text: string): 0 | 4 | 6 {
  if (IPV4.test(text)) return 4;
  if (!text.includes(':') || !/^[0-9a-fA-F:.]+$/.test(text)) return 0;
  try {
    new URL(`http://[${text}]/`);
    return 6;
  } catch {
    return 0;
  }
}

export interface ProxyEntry {
  address: string;
  family: 4 | 6;
  prefix?: number;
}

export function parseProxyEntry(entry: string): ProxyEntry | undefined {
  const [address = '', prefix, extra] = entry.split('/');
  const family = addressFamily(address);
  if (!family || extra !== undefined) return undefined;
  if (prefix === undefined) return { address, family };
  const bits = /^\d{1,3}$/.test(prefix) ? Number(prefix) : -1;
  return bits >= 0 && bits <= (family === 4 ? 32 : 128) ? { address, family, prefix: bits } : undefined;
}

/** The entries of an SVC_TRUST_PROXY list that are not addresses or ranges. */
export function invalidProxyEntries(entries: readonly string[]): string[] {
  return entries.filter((e) => !parseProxyEntry(e));
}
