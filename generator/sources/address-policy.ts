/**
 * Which network addresses a service may reach for a URL someone else wrote (a repository URL given
 * at registration, a source URL in a branch's config.yaml): the private-address rule of the
 * external-$ref fetcher, applied to every hop. `check` resolves the host once and returns the
 * addresses the connection must go to (see private-address-resolve.ts), or throws naming the URL.
 *
 * `allowPrivate` is an operator's choice (SVC_CONTROL_ALLOW_PRIVATE=1: a git host on the private
 * network) and what tests on loopback use; `isPrivate` and `resolver` are injectable for tests.
 */
import { SvcError } from '../../core/svc-error.js';
import { isPrivateAddress } from '../../core/private-address.js';
import {
  type HostResolver,
  hostOf,
  type ResolvedAddress,
  systemResolver,
} from '../../core/private-address-resolve.js';

export interface AddressPolicy {
  /** The addresses `url` may be reached at; throws a SOURCE_UNREACHABLE SvcError when none may. */
  check(url: URL, redirectedFrom?: URL): Promise<readonly ResolvedAddress[]>;
}

export interface AddressPolicyOptions {
  allowPrivate?: boolean;
  /** What counts as private (default isPrivateAddress). */
  isPrivate?: (address: string) => boolean;
  resolver?: HostResolver;
  /** What an error tells the operator to set to allow private addresses. */
  allowHint?: string;
}

export function addressPolicy(opts: AddressPolicyOptions = {}): AddressPolicy {
  const isPrivate = opts.isPrivate ?? isPrivateAddress;
  const resolver = opts.resolver ?? systemResolver;
  return {
    async check(url, from) {
      const hop = from ? `${from.href} redirected to ${url.href}: ` : '';
      const place = { url: (from ?? url).href };
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw new SvcError('SOURCE_UNREACHABLE', `${hop}only http(s) URLs are fetched, not ${url.protocol}`, {
          place,
        });
      }
      let addresses: readonly ResolvedAddress[];
      try {
        addresses = await resolver(hostOf(url));
      } catch (cause) {
        const code = (cause as NodeJS.ErrnoException)?.code ?? 'error';
        throw new SvcError(
          'SOURCE_UNREACHABLE',
          `${hop}the host ${hostOf(url)} could not be resolved (${code})`,
          {
            place,
            cause,
          },
        );
      }
      if (addresses.length === 0) {
        throw new SvcError('SOURCE_UNREACHABLE', `${hop}the host ${hostOf(url)} has no address`, { place });
      }
      if (!opts.allowPrivate) {
        const bad = addresses.find((a) => isPrivate(a.address));
        if (bad) {
          throw new SvcError(
            'SOURCE_UNREACHABLE',
            `${hop}refusing ${url.host}: it resolves to ${bad.address}, a loopback, private or internal address${opts.allowHint ? ` (${opts.allowHint} allows those)` : ''}`,
            { place },
          );
        }
      }
      return addresses;
    },
  };
}
