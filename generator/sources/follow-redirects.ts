/**
 * The one redirect follower for URLs someone else wrote (external `$ref`s, git over HTTP): every
 * hop's address is checked before anything is sent to it, the caller's credentials go to the
 * first origin only, user info in a Location is dropped, and the hops are counted. The loop is
 * core/redirect-loop.ts; this is its policy for such URLs.
 */
import type { IncomingMessage } from 'node:http';
import { redirectLoop } from '../../core/redirect-loop.js';
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
  // Each hop: its address checked, then sent, with the first URL's credentials only on its origin.
  let from: URL | undefined;
  const { request, response } = await redirectLoop<URL, IncomingMessage>(start, {
    send: async (url) => opts.send(url, await opts.check(url, from), url.origin === start.origin),
    next: (answer, url, hop) => {
      const location = answer.headers.location;
      if (!REDIRECT.has(answer.statusCode ?? 0) || !location) return undefined;
      answer.destroy();
      if (hop >= opts.maxRedirects) {
        throw new SvcError(opts.code, `${start.href} redirected more than ${opts.maxRedirects} times`, {
          place: { url: start.href },
        });
      }
      const next = new URL(location, url);
      if (opts.dropHash) next.hash = '';
      next.username = '';
      next.password = '';
      from = url;
      return next;
    },
  });
  return { url: request, response };
}
