/**
 * GET /oauth/authorize: checks the MCP client's request (a known client, one of its redirect
 * URIs, response_type=code, PKCE S256, a resource this runtime serves), then sends the person
 * to the upstream provider's authorize URL. The transaction (client, redirect URI, challenge,
 * state, resource, the upstream PKCE verifier) travels sealed in the upstream `state`.
 * Until the client and its redirect URI are known, errors are pages: nothing is redirected to
 * an unchecked URI.
 */
import type { FacadeContext } from './facade-context.js';
import { NO_STORE, page, redirectBack, sameResource } from './oauth-responses.js';
import { upstreamAuthorizeUrl } from './upstream-oauth.js';

const TXN_TTL_S = 600;

export async function authorize(ctx: FacadeContext, url: URL): Promise<Response> {
  const q = url.searchParams;
  const up = await ctx.provider();
  if (!up)
    return page(
      503,
      'This server has no sign-in configured (user_oauth with an oauth block and its client credentials).',
    );
  const clientId = q.get('client_id') ?? '';
  const client = clientId ? await ctx.clients.resolve(clientId) : undefined;
  if (!client)
    return page(
      400,
      'Unknown client: client_id is neither a client metadata document URL nor a client registered here.',
    );
  const asked = q.get('redirect_uri');
  const redirectUri = asked ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri || !client.redirectUris.includes(redirectUri))
    return page(400, "redirect_uri is not one of the client's registered redirect URIs.");
  const state = q.get('state') ?? undefined;
  const fail = (error: string, description: string) =>
    redirectBack(ctx.issuer, redirectUri, { error, error_description: description, state });
  if (q.get('response_type') !== 'code') return fail('unsupported_response_type', 'only response_type=code');
  const challenge = q.get('code_challenge');
  if (!challenge || q.get('code_challenge_method') !== 'S256' || !/^[A-Za-z0-9_-]{43}$/.test(challenge))
    return fail('invalid_request', 'PKCE with code_challenge_method=S256 is required');
  const resource = q.get('resource') ?? ctx.resourceFor(undefined);
  const match = ctx.resources().find((r) => sameResource(r, resource));
  if (!match) return fail('invalid_target', 'resource is not an MCP endpoint of this server');
  const { url: upstreamUrl, verifier } = await upstreamAuthorizeUrl(up, ctx.callbackUrl, '', up.scopes);
  const txn = await ctx.sealer.seal(
    'txn',
    { cid: client.clientId, ru: redirectUri, cc: challenge, st: state, res: match, uv: verifier },
    TXN_TTL_S,
  );
  const target = new URL(upstreamUrl);
  target.searchParams.set('state', txn);
  return new Response(null, { status: 302, headers: { location: target.href, ...NO_STORE } });
}
