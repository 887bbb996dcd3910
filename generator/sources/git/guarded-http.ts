/**
 * An isomorphic-git HTTP client for URLs someone else wrote: every hop's address is checked by the
 * policy and the connection goes to the address checked (no second DNS answer); redirects are
 * followed by hand (at most five), and the Authorization header is sent to the first URL's origin
 * only, never after a redirect elsewhere; a response may bring at most `maxBytes`.
 */
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { GitHttpRequest, GitHttpResponse, HttpClient } from 'isomorphic-git';
import { readNodeStreamCapped } from '../../../core/read-node-stream-capped.js';
import { SvcError } from '../../../core/svc-error.js';
import type { AddressPolicy } from '../address-policy.js';
import { followRedirects } from '../follow-redirects.js';
import { pinnedLookup } from '../../../core/private-address-resolve.js';

const MAX_REDIRECTS = 5;
const IDLE_TIMEOUT_MS = 120_000;

export interface GuardedHttpOptions {
  policy: AddressPolicy;
  /** Most bytes one response may bring. */
  maxBytes: number;
}

async function collect(body: GitHttpRequest['body']): Promise<Buffer | undefined> {
  if (!body) return undefined;
  if (Array.isArray(body)) return Buffer.concat(body as Uint8Array[]);
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

function send(
  url: URL,
  method: string,
  headers: OutgoingHttpHeaders,
  body: Buffer | undefined,
  addresses: Awaited<ReturnType<AddressPolicy['check']>>,
  signal: AbortSignal | undefined,
): Promise<IncomingMessage> {
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    const req = request(url, {
      method,
      headers: { ...headers, ...(body ? { 'content-length': String(body.byteLength) } : {}) },
      lookup: pinnedLookup(addresses) as never,
      agent: false,
      ...(signal ? { signal } : {}),
    });
    // A remote that stops answering (or drips nothing) fails the operation instead of holding it.
    req.setTimeout(IDLE_TIMEOUT_MS, () =>
      req.destroy(Object.assign(new Error('the remote stopped answering'), { code: 'ETIMEDOUT' })),
    );
    req.on('response', resolve);
    req.on('error', reject);
    req.end(body);
  });
}

export function guardedGitHttp(opts: GuardedHttpOptions): HttpClient {
  return {
    async request(request: GitHttpRequest): Promise<GitHttpResponse> {
      const method = request.method ?? 'GET';
      const body = await collect(request.body);
      const { url, response } = await followRedirects(new URL(request.url), {
        maxRedirects: MAX_REDIRECTS,
        code: 'SOURCE_UNREACHABLE',
        check: (hop, from) => opts.policy.check(hop, from),
        send: (hop, addresses, sameOrigin) => {
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(request.headers ?? {})) {
            // A credential goes to the origin it was given for, never to where a redirect points.
            if (name.toLowerCase() === 'authorization' && !sameOrigin) continue;
            headers[name] = value;
          }
          return send(hop, method, headers, body, addresses, request.signal);
        },
      });
      const place = `${url.origin}${url.pathname}`;
      // Read whole (isomorphic-git keeps packs in memory anyway), so an overflow is this error and
      // not whatever isomorphic-git would make of a body cut short.
      const whole = await readNodeStreamCapped(response, {
        maxBytes: opts.maxBytes,
        place,
        declaredLength: response.headers['content-length'],
        tooLarge: () =>
          new SvcError('SOURCE_TOO_LARGE', `${place} answered more than ${opts.maxBytes} bytes`, {
            place: { url: place },
          }),
      });
      const responseHeaders: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) {
        if (value !== undefined) responseHeaders[name] = Array.isArray(value) ? value.join(', ') : value;
      }
      return {
        url: url.href,
        method,
        statusCode: response.statusCode ?? 0,
        statusMessage: response.statusMessage ?? '',
        headers: responseHeaders,
        body: (async function* () {
          yield new Uint8Array(whole.buffer, whole.byteOffset, whole.byteLength);
        })(),
      };
    },
  };
}

/**
 * Why a git operation failed, in words that quote nothing the remote sent: isomorphic-git's errors
 * carry the first bytes of an unexpected answer, which may be an internal page's content.
 */
export function gitFailureReason(error: unknown): string {
  if (error instanceof SvcError) return error.message;
  const e = (error ?? {}) as { code?: string; data?: { statusCode?: number }; cause?: { code?: string } };
  if (e.code === 'HttpError' && e.data?.statusCode) return `HTTP ${e.data.statusCode}`;
  if (e.code === 'SmartHttpError') return 'the answer is not a git smart-HTTP answer';
  if (e.code === 'UserCanceledError') return 'the credentials were refused';
  if (e.code === 'NotFoundError') return 'not found';
  const network = (error as NodeJS.ErrnoException)?.code ?? e.cause?.code;
  if (network) return network;
  return e.code ?? 'git error';
}
