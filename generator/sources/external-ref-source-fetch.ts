/**
 * GET for an external $ref over http(s): each hop's address is checked by the caller's policy before
 * anything is sent, the connection goes to the checked address (no second DNS answer), and redirects
 * are followed by hand, each hop checked again, at most MAX_REF_REDIRECTS of them. No header of the
 * user's is sent: a $ref target is whoever the document names.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { readNodeStreamCapped } from '../../core/read-node-stream-capped.js';
import { SvcError } from '../../core/svc-error.js';
import { followRedirects } from './follow-redirects.js';
import type { SourceText } from './openapi-source.js';
import { pinnedLookup, type ResolvedAddress } from '../../core/private-address-resolve.js';

export const MAX_REF_REDIRECTS = 5;

export interface RefFetchOptions {
  /** The addresses `url` may be reached at; throws (an SvcError naming the $ref) when it may not be. */
  check(url: URL, redirectedFrom: URL | undefined): Promise<readonly ResolvedAddress[]>;
  maxBytes: number;
  timeoutMs: number;
  /** Sent to the first URL's origin only (a raw URL's Bearer token), never after a redirect elsewhere. */
  headers?: Record<string, string>;
}

export async function fetchExternalRef(start: URL, opts: RefFetchOptions): Promise<SourceText> {
  // One deadline for the whole fetch, every hop and the body: a server dripping bytes cannot stretch it.
  const deadline = AbortSignal.timeout(opts.timeoutMs);
  const { url, response } = await followRedirects(start, {
    maxRedirects: MAX_REF_REDIRECTS,
    code: 'SPEC_EXTERNAL_REF',
    dropHash: true,
    check: opts.check,
    send: (hop, addresses, sameOrigin) =>
      get(hop, addresses, deadline, opts.timeoutMs, sameOrigin ? (opts.headers ?? {}) : {}),
  });
  const status = response.statusCode ?? 0;
  if (status < 200 || status >= 300) {
    response.destroy();
    throw new SvcError('SOURCE_UNREACHABLE', `fetching ${url.href} failed with HTTP ${status}`, {
      place: { url: url.href },
      details: [`status ${status}`],
    });
  }
  const buffer = await readCapped(response, url, opts, deadline);
  const text = buffer.toString('utf8');
  return {
    text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
    origin: url.href,
    bytes: buffer.byteLength,
  };
}

function get(
  url: URL,
  addresses: readonly ResolvedAddress[],
  deadline: AbortSignal,
  timeoutMs: number,
  headers: Record<string, string> = {},
): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method: 'GET',
      headers: { accept: 'application/json, application/yaml, text/yaml, */*', ...headers },
      lookup: pinnedLookup(addresses) as never,
      // One connection per hop: a pooled socket could belong to an address checked for another URL.
      agent: false,
      signal: deadline,
    });
    req.on('response', resolve);
    req.on('error', (cause: NodeJS.ErrnoException) =>
      reject(
        new SvcError(
          'SOURCE_UNREACHABLE',
          `could not fetch ${url.href}: ${reason(cause, deadline, timeoutMs)}`,
          {
            place: { url: url.href },
            cause,
          },
        ),
      ),
    );
    req.end();
  });
}

function reason(cause: NodeJS.ErrnoException, deadline: AbortSignal, timeoutMs: number): string {
  return deadline.aborted ? `timed out after ${timeoutMs} ms` : (cause.code ?? cause.message);
}

async function readCapped(
  response: IncomingMessage,
  url: URL,
  opts: RefFetchOptions,
  deadline: AbortSignal,
): Promise<Buffer> {
  try {
    return await readNodeStreamCapped(response, {
      maxBytes: opts.maxBytes,
      place: url.href,
      declaredLength: response.headers['content-length'],
      tooLarge: () =>
        new SvcError('SOURCE_TOO_LARGE', `${url.href} is larger than the limit of ${opts.maxBytes} bytes`, {
          place: { url: url.href },
        }),
    });
  } catch (cause) {
    if (cause instanceof SvcError) throw cause;
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `reading ${url.href} failed: ${reason(cause as NodeJS.ErrnoException, deadline, opts.timeoutMs)}`,
      { place: { url: url.href }, cause },
    );
  }
}
