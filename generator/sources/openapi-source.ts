/**
 * The I/O edge of the generator: the only place that reads an API description from disk or
 * the network. Everything after it works on the returned text.
 */
import { isUtf8 } from 'node:buffer';
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { readWebStreamCapped } from '../../core/read-web-stream-capped.js';
import { redirectLoop } from '../../core/redirect-loop.js';
import { SvcError } from '../../core/svc-error.js';
import { rememberTextWithNewline } from '../../core/text-with-newline.js';
import type { AddressPolicy } from './address-policy.js';
import { fetchExternalRef } from './external-ref-source-fetch.js';

export interface SourceText {
  text: string;
  /** Absolute file path or URL (without credentials). */
  origin: string;
  bytes: number;
  /**
   * SHA-256 (hex) of `text` as UTF-8, when the reader hashed the bytes it read instead (the same
   * bytes: no BOM dropped, no invalid sequence replaced). Hashing a 12 MB document's bytes costs a
   * tenth of encoding its text again to hash it.
   */
  sha256?: string;
}

export interface ReadSourceOptions {
  cwd: string;
  /** Default 50 MiB. */
  maxBytes?: number;
  /** Default 30 s. */
  timeoutMs?: number;
  /** May hold a secret: never echoed in an error. */
  headers?: Record<string, string>;
  /** Checks every hop's address (the control service: no private addresses) and pins the connection. */
  policy?: AddressPolicy;
}

export const DEFAULT_MAX_SOURCE_BYTES = 50 * 1024 * 1024;
const DEFAULT_TIMEOUT_MS = 30_000;

export async function readOpenApiSource(location: string, opts: ReadSourceOptions): Promise<SourceText> {
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  if (/^https?:\/\//i.test(location)) return readUrl(location, maxBytes, opts);
  return readPath(location, maxBytes, opts.cwd);
}

async function readPath(location: string, maxBytes: number, cwd: string): Promise<SourceText> {
  const path = isAbsolute(location) ? location : resolve(cwd, location);
  let size: number;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    size = info.size;
  } catch (cause) {
    throw new SvcError('SOURCE_NOT_FOUND', `no OpenAPI document at ${path}`, {
      place: { file: path },
      cause,
    });
  }
  if (size > maxBytes) throw tooLarge(path, maxBytes, { file: path });
  const buffer = await readFile(path);
  if (buffer.byteLength > maxBytes) throw tooLarge(path, maxBytes, { file: path });
  return decoded(buffer, path);
}

async function readUrl(location: string, maxBytes: number, opts: ReadSourceOptions): Promise<SourceText> {
  let url: URL;
  try {
    url = new URL(location);
  } catch (cause) {
    throw new SvcError('SOURCE_UNREACHABLE', 'the source URL is not a valid URL', { cause });
  }
  if (url.username || url.password) {
    // Credentials in a URL would end up in config.yaml and logs; they belong in a header.
    url.username = '';
    url.password = '';
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `refusing a URL with credentials (user:password@): ${url.href} — pass them as a header instead`,
      { place: { url: url.href } },
    );
  }
  const href = url.href;
  if (opts.policy) {
    const policy = opts.policy;
    return fetchExternalRef(url, {
      check: (hop, from) => policy.check(hop, from),
      maxBytes,
      timeoutMs: opts.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      ...(opts.headers ? { headers: opts.headers } : {}),
    });
  }
  const controller = new AbortController();
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const response = await fetchFollowing(url, opts.headers ?? {}, controller, timeoutMs);
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      throw new SvcError(
        'SOURCE_UNREACHABLE',
        `fetching ${href} failed with HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`,
        { place: { url: href }, details: [`status ${response.status}`] },
      );
    }
    const buffer = await readCapped(response, maxBytes, href, controller, timeoutMs);
    return decoded(buffer, response.url || href);
  } finally {
    clearTimeout(timer);
  }
}

const MAX_REDIRECTS = 5;

/**
 * Follows redirects by hand so the caller's headers (which may carry a token) are sent only
 * to the origin they were given for, never to wherever a redirect points.
 */
export async function fetchFollowing(
  start: URL,
  headers: Record<string, string>,
  controller: AbortController,
  timeoutMs: number,
): Promise<Response> {
  const { response } = await redirectLoop<URL, Response>(start, {
    send: async (url) => {
      try {
        return await fetch(url, {
          headers: {
            accept: 'application/json, application/yaml, text/yaml, */*',
            ...(url.origin === start.origin ? headers : {}),
          },
          redirect: 'manual',
          signal: controller.signal,
        });
      } catch (cause) {
        const reason = controller.signal.aborted ? `timed out after ${timeoutMs} ms` : networkReason(cause);
        throw new SvcError('SOURCE_UNREACHABLE', `could not fetch ${url.href}: ${reason}`, {
          place: { url: url.href },
          cause,
        });
      }
    },
    next: async (answer, url, hop) => {
      const location = answer.headers.get('location');
      if (answer.status < 300 || answer.status >= 400 || !location) return undefined;
      await answer.body?.cancel().catch(() => undefined);
      if (hop >= MAX_REDIRECTS) {
        throw new SvcError(
          'SOURCE_UNREACHABLE',
          `fetching ${start.href} redirected more than ${MAX_REDIRECTS} times`,
          {
            place: { url: start.href },
          },
        );
      }
      const next = new URL(location, url);
      if (next.protocol !== 'http:' && next.protocol !== 'https:') {
        throw new SvcError('SOURCE_UNREACHABLE', `${url.href} redirected to a non-HTTP URL`, {
          place: { url: url.href },
        });
      }
      next.username = '';
      next.password = '';
      return next;
    },
  });
  return response;
}

async function readCapped(
  response: Response,
  maxBytes: number,
  href: string,
  controller: AbortController,
  timeoutMs: number,
): Promise<Buffer> {
  try {
    const bytes = await readWebStreamCapped(response.body, {
      maxBytes,
      place: href,
      declaredLength: response.headers.get('content-length'),
      tooLarge: () => tooLarge(href, maxBytes, { url: href }),
    });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (cause) {
    if (cause instanceof SvcError) throw cause;
    const reason = controller.signal.aborted ? `timed out after ${timeoutMs} ms` : networkReason(cause);
    throw new SvcError('SOURCE_UNREACHABLE', `reading ${href} failed: ${reason}`, {
      place: { url: href },
      cause,
    });
  }
}

function decoded(buffer: Buffer, origin: string): SourceText {
  // The text encodes back to these very bytes unless decoding dropped a BOM or replaced an invalid sequence.
  const bom = buffer[0] === 0xef && buffer[1] === 0xbb && buffer[2] === 0xbf;
  const utf8 = isUtf8(buffer);
  // Valid UTF-8 decodes with a newline after it as its text and a newline: decoded so, the text and
  // Tools/openapi.json (often the text and a newline) share one string (core/text-with-newline.ts).
  const text = utf8 ? rememberTextWithNewline(decode(Buffer.concat([buffer, NEWLINE]))) : decode(buffer);
  const sha256 = !bom && utf8 ? createHash('sha256').update(buffer).digest('hex') : undefined;
  return { text, origin, bytes: buffer.byteLength, ...(sha256 ? { sha256 } : {}) };
}

const NEWLINE = Buffer.from('\n');

function decode(buffer: Buffer): string {
  const text = buffer.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function tooLarge(where: string, maxBytes: number, place: { file?: string; url?: string }): SvcError {
  return new SvcError('SOURCE_TOO_LARGE', `${where} is larger than the limit of ${maxBytes} bytes`, {
    place,
  });
}

function networkReason(cause: unknown): string {
  const inner = (cause as { cause?: { code?: string; message?: string } })?.cause;
  if (inner?.code) return inner.code;
  if (inner?.message) return inner.message;
  return cause instanceof Error ? cause.message : 'network error';
}
