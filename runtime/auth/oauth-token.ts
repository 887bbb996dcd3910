/**
 * POST /oauth/token: the authorization_code grant (the sealed code of oauth-callback.ts, its
 * client, redirect URI, PKCE verifier and resource checked, redeemed once on this replica) and
 * the refresh_token grant (the upstream grant refreshed at the provider; a revoked one sends the
 * client back through authorization). Both answer svc's own tokens, sealed around the upstream
 * ones and bound to client and resource: the access token never outlives the upstream one.
 */
import { calculatePKCECodeChallenge } from 'oauth4webapi';
import type { FacadeContext } from './facade-context.js';
import { jsonAnswer, oauthError, sameResource } from './oauth-responses.js';
import { refreshUpstream, type UpstreamTokens } from './upstream-oauth.js';

const ACCESS_TTL_MAX_S = 3600;
const REFRESH_TTL_S = 30 * 24 * 3600;
const MAX_FORM_CHARS = 64 * 1024;

const stringOrUndefined = (value: unknown) => (typeof value === 'string' ? value : undefined);

/** The claims svc's tokens are bound to; `gid` names the sign-in (the person), kept across refreshes. */
interface Grant {
  clientId: string;
  resource: string;
  gid: string | undefined;
}

async function issueTokens(ctx: FacadeContext, grant: Grant, up: UpstreamTokens): Promise<Response> {
  const { clientId, resource, gid } = grant;
  const now = ctx.seconds();
  const ttl = Math.max(1, Math.min(ACCESS_TTL_MAX_S, (up.expiresAt ?? now + ACCESS_TTL_MAX_S) - now));
  const accessToken = await ctx.sealer.seal(
    'at',
    { cid: clientId, aud: resource, ut: up.accessToken, gid },
    ttl,
  );
  const refreshToken = up.refreshToken
    ? await ctx.sealer.seal(
        'rt',
        { cid: clientId, aud: resource, urt: up.refreshToken, sc: up.scope, gid },
        REFRESH_TTL_S,
      )
    : undefined;
  return jsonAnswer(200, {
    access_token: accessToken,
    token_type: 'Bearer',
    expires_in: ttl,
    ...(refreshToken ? { refresh_token: refreshToken } : {}),
    ...(up.scope ? { scope: up.scope } : {}),
  });
}

async function authorizationCodeGrant(ctx: FacadeContext, form: URLSearchParams): Promise<Response> {
  const clientId = form.get('client_id') ?? '';
  const resource = form.get('resource');
  const raw = form.get('code') ?? '';
  const code = await ctx.sealer.open('code', raw);
  if (!code) return oauthError(400, 'invalid_grant', 'the code is unknown or expired');
  if (code.cid !== clientId) return oauthError(400, 'invalid_grant', 'the code was issued to another client');
  const redirectUri = form.get('redirect_uri');
  if (redirectUri !== null && redirectUri !== code.ru)
    return oauthError(400, 'invalid_grant', 'redirect_uri differs from the authorization request');
  const verifier = form.get('code_verifier') ?? '';
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier) || (await calculatePKCECodeChallenge(verifier)) !== code.cc)
    return oauthError(400, 'invalid_grant', 'code_verifier does not match the code_challenge');
  if (resource !== null && !sameResource(resource, String(code.res)))
    return oauthError(400, 'invalid_target', 'resource differs from the authorization request');
  if (!ctx.redeemCode(raw)) return oauthError(400, 'invalid_grant', 'the code was already used');
  const grant = { clientId, resource: String(code.res), gid: stringOrUndefined(code.gid) };
  return issueTokens(ctx, grant, {
    accessToken: String(code.ut),
    ...(typeof code.urt === 'string' ? { refreshToken: code.urt } : {}),
    ...(typeof code.uexp === 'number' ? { expiresAt: code.uexp } : {}),
    ...(typeof code.sc === 'string' ? { scope: code.sc } : {}),
  });
}

async function refreshTokenGrant(ctx: FacadeContext, form: URLSearchParams): Promise<Response> {
  const clientId = form.get('client_id') ?? '';
  const resource = form.get('resource');
  const refresh = await ctx.sealer.open('rt', form.get('refresh_token') ?? '');
  if (!refresh) return oauthError(400, 'invalid_grant', 'the refresh token is unknown or expired');
  if (refresh.cid !== clientId)
    return oauthError(400, 'invalid_grant', 'the refresh token was issued to another client');
  if (resource !== null && !sameResource(resource, String(refresh.aud)))
    return oauthError(400, 'invalid_target', 'resource differs from the one the grant is for');
  const up = await ctx.provider();
  if (!up) return oauthError(400, 'invalid_grant', 'this server has no sign-in configured any more');
  const outcome = await refreshUpstream(up, String(refresh.urt), ctx.upstreamFetch, ctx.seconds());
  if (!outcome.ok) {
    ctx.logger.log('warn', 'oauth_upstream_refresh_failed', {
      revoked: outcome.revoked,
      reason: outcome.reason,
    });
    return outcome.revoked
      ? oauthError(400, 'invalid_grant', 'the API provider no longer honours this grant: sign in again')
      : oauthError(503, 'temporarily_unavailable', 'the API provider could not refresh the grant');
  }
  const tokens = outcome.tokens;
  const grant = { clientId, resource: String(refresh.aud), gid: stringOrUndefined(refresh.gid) };
  return issueTokens(ctx, grant, {
    ...tokens,
    ...(tokens.scope ? {} : typeof refresh.sc === 'string' ? { scope: refresh.sc } : {}),
  });
}

export async function token(ctx: FacadeContext, request: Request): Promise<Response> {
  const type = request.headers.get('content-type') ?? '';
  if (!type.startsWith('application/x-www-form-urlencoded'))
    return oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded');
  const text = await request.text();
  if (text.length > MAX_FORM_CHARS) return oauthError(400, 'invalid_request', 'body too large');
  const form = new URLSearchParams(text);
  const grant = form.get('grant_type');
  if (grant === 'authorization_code') return authorizationCodeGrant(ctx, form);
  if (grant === 'refresh_token') return refreshTokenGrant(ctx, form);
  return oauthError(400, 'unsupported_grant_type', 'authorization_code and refresh_token only');
}
