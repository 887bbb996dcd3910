/**
 * How upstream bytes move. Two interchangeable transports with one contract: the default
 * speaks node:http(s) with keep-alive agents (no web-stream layers per call: the hot path of
 * every tool call), the other wraps any fetch (tests inject one). Both cap the response size
 * while reading (core/read-node-stream-capped.ts, core/read-web-stream-capped.ts), never follow redirects themselves, and honour an abort signal.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { readNodeStreamCapped } from '../core/read-node-stream-capped.js';
import { readWebStreamCapped } from '../core/read-web-stream-capped.js';
import type { CancelSignal } from './call-cancel.js';

export interface TransportRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string | Uint8Array<ArrayBuffer> | FormData;
}

export interface TransportResponse {
  status: number;
  statusText: string;
  /** Lower-case header name → value. */
  headers: Record<string, string>;
  body: Uint8Array;
}

export type UpstreamTransport = (
  request: TransportRequest,
  options: { signal: CancelSignal; maxBytes: number },
) => Promise<TransportResponse>;

/** Thrown when a response exceeds maxBytes; the connection is dropped, nothing more is read. */
export class ResponseTooLarge extends Error {}

async function encodeForm(form: FormData): Promise<{ bytes: Uint8Array; contentType: string }> {
  // Multipart is rare: let the platform write the boundary and parts.
  const response = new Response(form);
  return {
    bytes: new Uint8Array(await response.arrayBuffer()),
    contentType: response.headers.get('content-type') ?? 'multipart/form-data',
  };
}

const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 256 });
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 256 });

export const nodeHttpTransport: UpstreamTransport = async (request, { signal, maxBytes }) => {
  const url = new URL(request.url);
  const headers: Record<string, string | number> = { ...request.headers };
  let body: Uint8Array | string | undefined;
  if (request.body instanceof FormData) {
    const encoded = await encodeForm(request.body);
    body = encoded.bytes;
    headers['content-type'] = encoded.contentType;
  } else body = request.body;
  if (body !== undefined)
    headers['content-length'] = typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
  const secure = url.protocol === 'https:';
  const send = secure ? httpsRequest : httpRequest;
  return new Promise<TransportResponse>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const req = send(url, { method: request.method, headers, agent: secure ? httpsAgent : httpAgent });
    // One listener, not node:http's `signal` option (addAbortSignal: an abort listener plus
    // end-of-stream listeners on the request, per call).
    const onAbort = () => req.destroy(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => signal.removeEventListener('abort', onAbort);
    req.on('error', (error) => {
      settle();
      reject(error);
    });
    req.on('response', (res: IncomingMessage) => {
      readNodeStreamCapped(res, {
        maxBytes,
        place: request.url,
        declaredLength: res.headers['content-length'],
        tooLarge: () => new ResponseTooLarge(),
      }).then(
        (bytes) => {
          settle();
          const out: Record<string, string> = {};
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
          resolve({
            status: res.statusCode ?? 0,
            statusText: res.statusMessage ?? '',
            headers: out,
            body: bytes,
          });
        },
        (error: unknown) => {
          settle();
          reject(error);
        },
      );
    });
    req.end(body);
  });
};

export function fetchTransport(fetchFn: typeof fetch): UpstreamTransport {
  return async (request, { signal, maxBytes }) => {
    // fetch needs a real AbortSignal (this transport serves tests, not the hot path).
    const controller = new AbortController();
    if (signal.aborted) controller.abort(signal.reason);
    const onAbort = () => controller.abort(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    try {
      return await fetchOnce(fetchFn, request, controller.signal, maxBytes);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  };
}

async function fetchOnce(
  fetchFn: typeof fetch,
  request: TransportRequest,
  signal: AbortSignal,
  maxBytes: number,
): Promise<TransportResponse> {
  const init: RequestInit = {
    method: request.method,
    headers: request.headers,
    redirect: 'manual',
    signal,
  };
  if (request.body !== undefined) init.body = request.body;
  const response = await fetchFn(request.url, init);
  const body = await readWebStreamCapped(response.body, {
    maxBytes,
    place: request.url,
    declaredLength: response.headers.get('content-length'),
    tooLarge: () => new ResponseTooLarge(),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((v, k) => {
    headers[k] = v;
  });
  return { status: response.status, statusText: response.statusText, headers, body };
}
