/**
 * Reads a Web ReadableStream (a fetch Response's body) whole, within a byte cap
 * (core/body-cap.ts): past the cap the stream is cancelled, nothing more is read. Platform
 * neutral (no Node Buffer): runs wherever fetch does.
 */
import { abortReason, type BodyCapOptions, bodyTooLarge, declaredOverCap } from './body-cap.js';

function concat(chunks: Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}

export async function readWebStreamCapped(
  body: ReadableStream<Uint8Array> | null | undefined,
  options: BodyCapOptions,
): Promise<Uint8Array> {
  const { maxBytes, signal } = options;
  if (signal?.aborted) {
    await body?.cancel(abortReason(signal)).catch(() => undefined);
    throw abortReason(signal);
  }
  if (!options.truncate && declaredOverCap(options.declaredLength, maxBytes)) {
    await body?.cancel().catch(() => undefined);
    throw bodyTooLarge(options);
  }
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
  const onAbort = () => void reader.cancel(abortReason(signal!)).catch(() => undefined);
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw abortReason(signal);
      if (done) break;
      total += value.byteLength;
      if (total > maxBytes) {
        if (options.truncate) chunks.push(value);
        await reader.cancel().catch(() => undefined);
        if (options.truncate) break;
        throw bodyTooLarge(options);
      }
      chunks.push(value);
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
  }
  return concat(chunks, total);
}
