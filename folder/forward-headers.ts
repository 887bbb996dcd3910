/**
 * config.yaml `forwardHeaders`: which headers of the MCP HTTP request go upstream on each tool
 * call (contracts/oauth.md). The credential, the cookie jar, the host, MCP's own headers and the
 * hop-by-hop headers belong to one hop or to svc, never to a pass-through list.
 */

/** RFC 9110 §7.6.1 connection-specific fields, and the transport's own framing headers. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'expect',
]);
const CREDENTIAL = new Set(['authorization', 'cookie', 'set-cookie', 'host']);

/** Why a header can never be forwarded, or undefined when it can. */
export function forbiddenForwardHeader(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (CREDENTIAL.has(lower))
    return `"${name}" carries a credential or the target host and is never forwarded`;
  if (lower.startsWith('mcp-')) return `"${name}" is an MCP protocol header (Mcp-*) and is never forwarded`;
  if (HOP_BY_HOP.has(lower)) return `"${name}" is a hop-by-hop header and is never forwarded`;
  return undefined;
}
