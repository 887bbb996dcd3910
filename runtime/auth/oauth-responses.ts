/**
 * The answers of the OAuth facade's endpoints: OAuth error bodies (RFC 6749 §5.2), plain pages
 * for a person in a browser, redirects back to the client (with RFC 9207 `iss`), and the CORS
 * headers browser-based MCP clients need on the JSON endpoints. Nothing here is cached.
 */
export const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };
/** The JSON endpoints answer browser-based MCP clients too: no cookie is involved, so any origin. */
export const ANY_ORIGIN = { 'access-control-allow-origin': '*' };
export const PREFLIGHT = {
  ...ANY_ORIGIN,
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type, authorization, mcp-protocol-version',
  'access-control-max-age': '600',
};

/** A JSON body answered to an MCP client, never cached. */
export function jsonAnswer(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...NO_STORE, ...ANY_ORIGIN },
  });
}

export function oauthError(status: number, error: string, description: string): Response {
  return jsonAnswer(status, { error, error_description: description });
}

/** A plain page for the person in the browser (nothing may be redirected to an unchecked URI). */
export function page(status: number, text: string): Response {
  return new Response(text, {
    status,
    headers: { 'content-type': 'text/plain; charset=utf-8', ...NO_STORE },
  });
}

/** Back to the client's redirect URI with `params` and the issuer (RFC 9207). */
export function redirectBack(
  issuer: string,
  redirectUri: string,
  params: Record<string, string | undefined>,
): Response {
  const url = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  url.searchParams.set('iss', issuer);
  return new Response(null, { status: 302, headers: { location: url.href, ...NO_STORE } });
}

/** Two resource indicators (RFC 8707) name the same resource, up to a fragment and a final slash. */
export function sameResource(a: string, b: string): boolean {
  const norm = (s: string) => s.replace(/#.*$/, '').replace(/\/$/, '');
  return norm(a) === norm(b);
}
