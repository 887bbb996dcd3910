/**
 * What every endpoint of the OAuth facade works with (oauth-facade.ts builds it once): the
 * issuer and its URLs, the sealer, the provider people sign in at, the MCP clients it knows,
 * and the codes already redeemed on this replica.
 */
import type { Logger } from '../logger.js';
import type { ClientRegistry } from './clients.js';
import type { ProviderSource } from './oauth-provider.js';
import type { Sealer } from './seal.js';

export const CODE_TTL_S = 60;

export interface FacadeContext {
  /** MCP_RUNTIME_PUBLIC_URL: the facade's issuer and the base of every URL it publishes. */
  issuer: string;
  /** Where the upstream provider sends the person back (/oauth/callback). */
  callbackUrl: string;
  sealer: Sealer;
  logger: Logger;
  /** Now, in epoch seconds. */
  seconds: () => number;
  /** For the upstream token endpoint (tests route it). */
  upstreamFetch: typeof fetch;
  provider: ProviderSource;
  clients: ClientRegistry;
  /** The resource (RFC 8707) served at /mcp (pathId undefined) or /mcp/<serverId>. */
  resourceFor(pathId: string | undefined): string;
  /** The resources this runtime serves now: /mcp and /mcp/<serverId>. */
  resources(): string[];
  /** Redeems a code once on this replica: false when it was redeemed here before. */
  redeemCode(code: string): boolean;
  /** The title people see on consent screens (RFC 9728 resource_name). */
  resourceName(): string;
}

/**
 * A code is single-use within one replica: the redeemed ones are kept until they would have
 * expired anyway (CODE_TTL_S). Codes are sealed, not stored, so another replica cannot know a
 * code was redeemed here (docs/oauth.md says what that means for several replicas).
 */
export function singleUseCodes(seconds: () => number): (code: string) => boolean {
  const redeemed = new Map<string, number>();
  return (code) => {
    const now = seconds();
    for (const [k, exp] of redeemed) if (exp < now) redeemed.delete(k);
    if (redeemed.has(code)) return false;
    redeemed.set(code, now + CODE_TTL_S + 5);
    return true;
  };
}
