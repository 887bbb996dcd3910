/**
 * The runtime as the upstream provider's OAuth client (oauth4webapi): the authorization URL it
 * sends each person to (PKCE S256, the folder's scopes), the code exchange at tokenUrl and the
 * refresh, authenticated with the client credentials from the environment. config.yaml names
 * no upstream issuer, so the `iss` the provider returns in the redirect (RFC 9207) is taken as
 * its issuer: there is one provider per folder, which is what the mix-up defence protects.
 */
import * as oauth from 'oauth4webapi';

export interface UpstreamTokens {
  accessToken: string;
  refreshToken?: string;
  /** Epoch seconds, or undefined when the provider gave no expires_in. */
  expiresAt?: number;
  scope?: string;
}

export interface UpstreamProvider {
  /** Known only for a discovered OpenID provider (MCP_AUTH=oauth): then its `iss` is checked exactly. */
  issuer?: string;
  authorizeUrl: string;
  tokenUrl: string;
  scopes: readonly string[];
  clientId: string;
  clientSecret?: string;
}

export type RefreshOutcome =
  | { ok: true; tokens: UpstreamTokens }
  | { ok: false; revoked: boolean; reason: string };

function options(provider: UpstreamProvider, fetchImpl: typeof fetch): oauth.TokenEndpointRequestOptions {
  return {
    [oauth.customFetch]: fetchImpl,
    ...(provider.tokenUrl.startsWith('http:') ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(15_000),
  };
}

function clientAuth(provider: UpstreamProvider): oauth.ClientAuth {
  return provider.clientSecret ? oauth.ClientSecretBasic(provider.clientSecret) : oauth.None();
}

function tokensOf(response: oauth.TokenEndpointResponse, nowSeconds: number): UpstreamTokens {
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    ...(typeof response.expires_in === 'number' ? { expiresAt: nowSeconds + response.expires_in } : {}),
    ...(response.scope ? { scope: response.scope } : {}),
  };
}

export async function upstreamAuthorizeUrl(
  provider: UpstreamProvider,
  redirectUri: string,
  state: string,
  scopes: readonly string[],
): Promise<{ url: string; verifier: string }> {
  const verifier = oauth.generateRandomCodeVerifier();
  const url = new URL(provider.authorizeUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', provider.clientId);
  url.searchParams.set('redirect_uri', redirectUri);
  if (scopes.length > 0) url.searchParams.set('scope', scopes.join(' '));
  url.searchParams.set('state', state);
  url.searchParams.set('code_challenge', await oauth.calculatePKCECodeChallenge(verifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return { url: url.href, verifier };
}

export async function exchangeUpstreamCode(
  provider: UpstreamProvider,
  callback: URL,
  redirectUri: string,
  verifier: string,
  fetchImpl: typeof fetch,
  nowSeconds: number,
): Promise<UpstreamTokens> {
  const iss = callback.searchParams.get('iss');
  const as: oauth.AuthorizationServer = {
    issuer: provider.issuer ?? iss ?? new URL(provider.tokenUrl).origin,
    token_endpoint: provider.tokenUrl,
    ...(iss || provider.issuer ? { authorization_response_iss_parameter_supported: true } : {}),
  };
  const client: oauth.Client = { client_id: provider.clientId };
  const params = oauth.validateAuthResponse(as, client, callback, oauth.skipStateCheck);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    clientAuth(provider),
    params,
    redirectUri,
    verifier,
    options(provider, fetchImpl),
  );
  return tokensOf(await oauth.processAuthorizationCodeResponse(as, client, response), nowSeconds);
}

export async function refreshUpstream(
  provider: UpstreamProvider,
  refreshToken: string,
  fetchImpl: typeof fetch,
  nowSeconds: number,
): Promise<RefreshOutcome> {
  const as: oauth.AuthorizationServer = {
    issuer: provider.issuer ?? new URL(provider.tokenUrl).origin,
    token_endpoint: provider.tokenUrl,
  };
  const client: oauth.Client = { client_id: provider.clientId };
  try {
    const response = await oauth.refreshTokenGrantRequest(
      as,
      client,
      clientAuth(provider),
      refreshToken,
      options(provider, fetchImpl),
    );
    const tokens = tokensOf(await oauth.processRefreshTokenResponse(as, client, response), nowSeconds);
    // A provider that does not rotate refresh tokens keeps the one it gave.
    return { ok: true, tokens: tokens.refreshToken ? tokens : { ...tokens, refreshToken } };
  } catch (error) {
    if (error instanceof oauth.ResponseBodyError) {
      return {
        ok: false,
        revoked: error.error === 'invalid_grant',
        reason: `the provider answered ${error.error}`,
      };
    }
    return {
      ok: false,
      revoked: false,
      reason: 'the provider could not be reached or answered unexpectedly',
    };
  }
}

/** OpenID Connect discovery of MCP_OAUTH_ISSUER (the issuer in the document must match exactly). */
export async function discoverProvider(
  issuer: string,
  fetchImpl: typeof fetch,
): Promise<{ issuer: string; authorizeUrl: string; tokenUrl: string }> {
  const url = new URL(issuer);
  const response = await oauth.discoveryRequest(url, {
    algorithm: 'oidc',
    [oauth.customFetch]: fetchImpl,
    ...(url.protocol === 'http:' ? { [oauth.allowInsecureRequests]: true } : {}),
    signal: AbortSignal.timeout(15_000),
  });
  const as = await oauth.processDiscoveryResponse(url, response);
  if (!as.authorization_endpoint || !as.token_endpoint)
    throw new Error('the provider metadata names no authorization or token endpoint');
  return { issuer: as.issuer, authorizeUrl: as.authorization_endpoint, tokenUrl: as.token_endpoint };
}
