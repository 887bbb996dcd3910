/**
 * The rule every capped body reader shares (core/read-web-stream-capped.ts for a Web
 * ReadableStream, core/read-node-stream-capped.ts for a Node Readable): a body is read while it
 * stays within `maxBytes`; the first byte past the cap stops the reading and throws the reader's
 * own error (by default a SOURCE_TOO_LARGE SvcError naming the place and the cap), or, with
 * `truncate`, ends the reading with what has come so far. A declared Content-Length over the cap
 * is refused before a byte is read. An abort stops the reading and the stream.
 */
import { SvcError } from './svc-error.js';

/** What AbortSignal offers and the runtime's CallCancel stand-in too. */
export interface AbortLike {
  readonly aborted: boolean;
  readonly reason: unknown;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

export interface BodyCapOptions {
  maxBytes: number;
  /** The URL or name the body comes from: the default error names it. */
  place: string;
  /** The error thrown past the cap (callers keep their own codes and words). */
  tooLarge?: () => Error;
  /** Past the cap, end with the bytes read so far (the chunk that crossed it included), no error. */
  truncate?: boolean;
  /** The Content-Length the sender declared, when known: over the cap, refused before reading. */
  declaredLength?: string | number | null;
  /** Stops the reading (the stream is cancelled or destroyed) and rejects with its reason. */
  signal?: AbortLike;
}

export function bodyTooLarge(options: BodyCapOptions): Error {
  if (options.tooLarge) return options.tooLarge();
  return new SvcError(
    'SOURCE_TOO_LARGE',
    `${options.place} is larger than the limit of ${options.maxBytes} bytes`,
    {
      place: { url: options.place },
    },
  );
}

/** A declared length (a Content-Length header's value) over the cap. */
export function declaredOverCap(declared: string | number | null | undefined, maxBytes: number): boolean {
  const length = Number(declared ?? Number.NaN);
  return Number.isFinite(length) && length > maxBytes;
}

/** The reason an abort carries, as an Error to reject with. */
export function abortReason(signal: AbortLike): unknown {
  return signal.reason ?? new Error('aborted');
}

/**
 * The same rule for a body passed on as it streams (isomorphic-git's HTTP answers): the chunks
 * go through until one crosses the cap, which throws instead.
 */
export async function* capChunks<T extends Uint8Array>(
  source: AsyncIterable<T>,
  options: BodyCapOptions,
): AsyncGenerator<T> {
  let total = 0;
  for await (const chunk of source) {
    total += chunk.byteLength;
    if (total > options.maxBytes) throw bodyTooLarge(options);
    yield chunk;
  }
}
