/**
 * The facade's published metadata: RFC 8414 authorization server metadata and RFC 9728
 * protected-resource metadata for /mcp and /mcp/<serverId>. Both answer 404 while no sign-in
 * is configured, so a client never starts a flow that cannot finish.
 */
import { buildOAuthProtectedResourceMetadata, type OAuthMetadata } from '@modelcontextprotocol/server';
import type { FacadeContext } from './facade-context.js';
import { page } from './oauth-responses.js';

export function authorizationServerMetadata(issuer: string, scopes: readonly string[]): OAuthMetadata {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...scopes],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  } as OAuthMetadata;
}

/** GET /.well-known/oauth-authorization-server */
export async function serveAuthorizationServerMetadata(ctx: FacadeContext): Promise<Response> {
  const up = await ctx.provider();
  return up
    ? Response.json(authorizationServerMetadata(ctx.issuer, up.scopes), {
        headers: { 'access-control-allow-origin': '*' },
      })
    : page(404, 'Not Found');
}

/** GET /.well-known/oauth-protected-resource[/mcp[/<serverId>]] */
export async function serveResourceMetadata(
  ctx: FacadeContext,
  pathId: string | undefined,
): Promise<Response> {
  const up = await ctx.provider();
  if (!up) return page(404, 'Not Found');
  const metadata = buildOAuthProtectedResourceMetadata({
    oauthMetadata: authorizationServerMetadata(ctx.issuer, up.scopes),
    resourceServerUrl: new URL(ctx.resourceFor(pathId)),
    scopesSupported: [...up.scopes],
    resourceName: ctx.resourceName(),
    dangerouslyAllowInsecureIssuerUrl: ctx.issuer.startsWith('http:'),
  });
  return Response.json(metadata, { headers: { 'access-control-allow-origin': '*' } });
}
