/**
 * The one redirect follower for URLs someone else wrote (external `$ref`s, git over HTTP): every
 * hop's address is checked before anything is sent to it, the caller's credentials go to the
 * first origin only, user info in a Location is dropped, and the hops are counted.
 */
import type { IncomingMessage } from 'node:http';
import { SvcError, type SvcErrorCode } from '../../core/svc-error.js';
import type { ResolvedAddress } from '../../core/private-address-resolve.js';

const REDIRECT = new Set([301, 302, 303, 307, 308]);

export interface FollowOptions {
  maxRedirects: number;
  /** The error code of "too many redirects", in the caller's words. */
  code: SvcErrorCode;
  /** Drop the fragment of a Location (a `$ref`'s pointer is not the server's business). */
  dropHash?: boolean;
  /** The addresses this hop may be reached at; throws when none may. */
  check(url: URL, redirectedFrom: URL | undefined): Promise<readonly ResolvedAddress[]>;
  /** Sends one request; `sameOrigin` says whether the first URL's credentials may go with it. */
  send(url: URL, addresses: readonly ResolvedAddress[], sameOrigin: boolean): Promise<IncomingMessage>;
}

/** Follows redirects from `start`; answers the first response that is not one, and its URL. */
export async function followRedirects(
  start: URL,
  opts: FollowOptions,
): Promise<{ url: URL; response: IncomingMessage }> {
  let url = start;
  let from: URL | undefined;
  for (let hop = 0; ; hop++) {
    const addresses = await opts.check(url, from);
    const response = await opts.send(url, addresses, url.origin === start.origin);
    const location = response.headers.location;
    if (!REDIRECT.has(response.statusCode ?? 0) || !location) return { url, response };
    response.destroy();
    if (hop >= opts.maxRedirects) {
      throw new SvcError(opts.code, `${start.href} redirected more than ${opts.maxRedirects} times`, {
        place: { url: start.href },
      });
    }
    from = url;
    url = new URL(location, url);
    if (opts.dropHash) url.hash = '';
    url.username = '';
    url.password = '';
  }
}
