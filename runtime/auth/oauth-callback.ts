/**
 * GET /oauth/callback: the upstream provider sends the person back here. The sealed transaction
 * (oauth-authorize.ts) comes back as `state`; the upstream code is exchanged at tokenUrl with the
 * client credentials, and the MCP client gets its own code: sealed, short-lived (CODE_TTL_S),
 * bound to its client, redirect URI, PKCE challenge and resource, holding the upstream tokens.
 */
import { CODE_TTL_S, type FacadeContext } from './facade-context.js';
import { page, redirectBack } from './oauth-responses.js';
import { exchangeUpstreamCode, type UpstreamTokens } from './upstream-oauth.js';

export async function callback(ctx: FacadeContext, url: URL): Promise<Response> {
  const txn = await ctx.sealer.open('txn', url.searchParams.get('state') ?? '');
  if (!txn)
    return page(400, 'This sign-in has expired or was not started here: start again from your MCP client.');
  const redirectUri = String(txn.ru);
  const state = typeof txn.st === 'string' ? txn.st : undefined;
  const back = (params: Record<string, string | undefined>) =>
    redirectBack(ctx.issuer, redirectUri, { ...params, state });
  const upstreamError = url.searchParams.get('error');
  if (upstreamError) {
    ctx.logger.log('warn', 'oauth_upstream_denied', { error: upstreamError.slice(0, 64) });
    return back({
      error: upstreamError === 'access_denied' ? 'access_denied' : 'server_error',
      error_description: 'the API provider did not grant access',
    });
  }
  const up = await ctx.provider();
  if (!up) return page(503, 'This server has no sign-in configured.');
  let tokens: UpstreamTokens;
  try {
    tokens = await exchangeUpstreamCode(
      up,
      url,
      ctx.callbackUrl,
      String(txn.uv),
      ctx.upstreamFetch,
      ctx.seconds(),
    );
  } catch (error) {
    const e = error as { error?: unknown; code?: unknown };
    ctx.logger.log('warn', 'oauth_upstream_exchange_failed', {
      reason:
        typeof e.error === 'string' ? e.error : typeof e.code === 'string' ? e.code : 'unexpected answer',
    });
    return back({ error: 'server_error', error_description: 'the API provider refused the sign-in' });
  }
  const code = await ctx.sealer.seal(
    'code',
    {
      cid: txn.cid,
      ru: redirectUri,
      cc: txn.cc,
      res: txn.res,
      ut: tokens.accessToken,
      urt: tokens.refreshToken,
      uexp: tokens.expiresAt,
      sc: tokens.scope,
      // This sign-in: the tokens issued from the code, refreshed or not, name the same person.
      gid: crypto.randomUUID(),
    },
    CODE_TTL_S,
  );
  return back({ code });
}
