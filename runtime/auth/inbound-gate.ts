/**
 * The gate in front of /mcp and /mcp/<serverId> (Hono middleware, contracts/oauth.md):
 * - a user_oauth folder: svc's own sealed access token, for this very resource (RFC 8707 —
 *   a token minted for the other MCP path or another server is refused), unsealed into the end
 *   user's upstream token, which the tool calls of this request carry (CallContext);
 * - MCP_AUTH=oauth: the same sealed token, issued after the person signed in at the OpenID
 *   provider MCP_OAUTH_ISSUER names; the tool calls keep the shared credential;
 * - MCP_AUTH=bearer: a token whose SHA-256 is in SVC_MCP_TOKENS, compared in constant time;
 * - otherwise open.
 * A refusal is the SDK's own 401 with `WWW-Authenticate: Bearer` (and resource_metadata for
 * user_oauth). When the upstream answers 401 to the user's token (a revoked grant), the
 * answer becomes that 401 too, so the client refreshes or signs the person in again.
 */
import {
  type AuthInfo,
  bearerAuthChallengeResponse,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import type { MiddlewareHandler } from 'hono';
import { attachCallContext } from '../call-context.js';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';
import type { CallContext } from '../tool-call.js';
import type { OAuthFacade } from './oauth-facade.js';

const encoder = new TextEncoder();

function hexToBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return out;
}

/** Equal, in time that depends only on the length (32 bytes here). */
function constantTimeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

export function staticTokenVerifier(hashes: readonly string[], now: () => number) {
  const known = hashes.map(hexToBytes);
  return {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', encoder.encode(token)));
      let match = -1;
      // Every hash is compared, whether or not an earlier one matched.
      for (let i = 0; i < known.length; i++) if (constantTimeEqual(digest, known[i]!)) match = i;
      if (match < 0) throw new OAuthError(OAuthErrorCode.InvalidToken, 'unknown token');
      return {
        token: '',
        clientId: 'static',
        scopes: [],
        expiresAt: Math.floor(now() / 1000) + 3600,
        // Which token: its place in SVC_MCP_TOKENS (a session is bound to it).
        extra: { subject: `bearer:${match}` },
      };
    },
  };
}

function pathIdOf(path: string): string | undefined {
  const rest = path.startsWith('/mcp/') ? path.slice(5) : '';
  return rest === '' ? undefined : decodeURIComponent(rest);
}

export interface InboundGateOptions {
  env: RuntimeEnv;
  store: ConfigStore;
  facade: OAuthFacade | undefined;
  logger: Logger;
  now: () => number;
}

/** The middleware, or undefined when nothing guards /mcp (MCP_AUTH=none, no user_oauth facade). */
export function createInboundGate(opts: InboundGateOptions): MiddlewareHandler | undefined {
  const { env, store, facade, logger, now } = opts;
  const bearer =
    env.mcpAuth === 'bearer' && env.mcpTokenHashes ? staticTokenVerifier(env.mcpTokenHashes, now) : undefined;
  if (!bearer && !facade) return undefined;

  const userVerifier = facade && {
    async verifyAccessToken(token: string): Promise<AuthInfo> {
      const opened = await facade.openAccessToken(token);
      if (!opened)
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token is not valid here or has expired');
      return {
        token: '',
        clientId: opened.clientId,
        scopes: [],
        expiresAt: opened.exp,
        resource: new URL(opened.resource),
        extra: { userToken: opened.userToken, subject: opened.subject },
      };
    },
  };

  // Per MCP path, built once (a handful of paths; any others are not cached).
  const targets = new Map<string, { resourceMetadataUrl: string; expectedResource: URL }>();
  const targetOf = (pathId: string | undefined) => {
    const key = pathId ?? '';
    let target = targets.get(key);
    if (!target && facade) {
      target = {
        resourceMetadataUrl: facade.metadataUrlFor(pathId),
        expectedResource: new URL(facade.resourceFor(pathId)),
      };
      if (targets.size < 16) targets.set(key, target);
    }
    return target!;
  };

  return async function inboundGate(c, next) {
    const request = c.req.raw;
    if (request.method === 'OPTIONS') return next();
    const header = request.headers.get('authorization');
    const perUser = store.current().userOAuth === true;
    if (facade && userVerifier && (perUser || env.mcpAuth === 'oauth')) {
      const pathId = pathIdOf(c.req.path);
      const { resourceMetadataUrl, expectedResource } = targetOf(pathId);
      let info: AuthInfo;
      try {
        info = await verifyBearerToken(header, {
          verifier: userVerifier,
          resourceMetadataUrl,
          expectedResource,
        });
      } catch (error) {
        return bearerAuthChallengeResponse(error, { resourceMetadataUrl });
      }
      // MCP_AUTH=oauth: the person is authenticated, the API still gets the shared credential.
      const principal = info.extra?.subject as string;
      const call: CallContext = perUser
        ? { headers: request.headers, principal, userToken: info.extra?.userToken as string }
        : { headers: request.headers, principal };
      attachCallContext(request, call);
      await next();
      if (call.userTokenRejected) {
        logger.log('info', 'oauth_upstream_rejected_token', { client: info.clientId.slice(0, 80) });
        c.res = bearerAuthChallengeResponse(
          new OAuthError(OAuthErrorCode.InvalidToken, 'the API refused the signed-in person: sign in again'),
          { resourceMetadataUrl },
        );
      }
      return;
    }
    if (bearer) {
      let info: AuthInfo;
      try {
        info = await verifyBearerToken(header, { verifier: bearer });
      } catch (error) {
        return bearerAuthChallengeResponse(error);
      }
      attachCallContext(request, { headers: request.headers, principal: info.extra?.subject as string });
    }
    return next();
  };
}
