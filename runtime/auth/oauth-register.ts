/** POST /oauth/register: dynamic client registration (RFC 7591), sealed into the client_id (clients.ts). */
import type { FacadeContext } from './facade-context.js';
import { jsonAnswer, oauthError, page } from './oauth-responses.js';

export async function register(ctx: FacadeContext, request: Request): Promise<Response> {
  if (!(await ctx.provider())) return page(404, 'Not Found');
  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return oauthError(400, 'invalid_client_metadata', 'the body must be JSON');
  }
  const outcome = await ctx.clients.register(body);
  if (!outcome.ok) return oauthError(400, 'invalid_redirect_uri', outcome.error);
  return jsonAnswer(201, outcome.client);
}
