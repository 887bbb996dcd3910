/**
 * Opening svc's sealed access tokens for the inbound gate. A client presents the same token on
 * every call until it expires: it is opened once, then looked up (oldest dropped first).
 */
import type { Sealer } from './seal.js';

/** One per active client is plenty. */
const OPENED_CACHE_MAX = 1000;

export interface OpenedAccessToken {
  clientId: string;
  resource: string;
  userToken: string;
  exp: number;
  /** Who signed in (CallContext.principal): the sign-in's grant id, else (older tokens) the client. */
  subject: string;
}

export function accessTokenOpener(
  sealer: Sealer,
  seconds: () => number,
): (sealed: string) => Promise<OpenedAccessToken | undefined> {
  const opened = new Map<string, OpenedAccessToken>();
  return async (sealed) => {
    const hit = opened.get(sealed);
    if (hit) {
      if (hit.exp > seconds()) return hit;
      opened.delete(sealed);
      return undefined;
    }
    const claims = await sealer.open('at', sealed);
    if (!claims || typeof claims.ut !== 'string' || typeof claims.aud !== 'string') return undefined;
    const token = {
      clientId: String(claims.cid),
      resource: claims.aud,
      userToken: claims.ut,
      exp: Number(claims.exp),
      subject: typeof claims.gid === 'string' ? `grant:${claims.gid}` : `client:${String(claims.cid)}`,
    };
    if (opened.size >= OPENED_CACHE_MAX) opened.delete(opened.keys().next().value!);
    opened.set(sealed, token);
    return token;
  };
}
