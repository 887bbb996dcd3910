/**
 * Reads a Node Readable (an http IncomingMessage) whole, within a byte cap (core/body-cap.ts):
 * past the cap the stream is destroyed, nothing more is read. Event listeners, not an async
 * iterator: this reads every upstream answer on the runtime's hot path.
 */
import type { Readable } from 'node:stream';
import { abortReason, type BodyCapOptions, bodyTooLarge, declaredOverCap } from './body-cap.js';

export function readNodeStreamCapped(stream: Readable, options: BodyCapOptions): Promise<Buffer> {
  const { maxBytes, signal } = options;
  if (signal?.aborted) {
    stream.destroy();
    return Promise.reject(abortReason(signal));
  }
  if (!options.truncate && declaredOverCap(options.declaredLength, maxBytes)) {
    stream.destroy();
    return Promise.reject(bodyTooLarge(options));
  }
  return new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let settled = false;
    // The error and close listeners stay (guarded): a stream destroyed later must not emit an
    // 'error' nobody listens to.
    const settle = (): boolean => {
      if (settled) return false;
      settled = true;
      stream.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      return true;
    };
    const whole = () => (chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks));
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength;
      if (total <= maxBytes) {
        chunks.push(chunk);
        return;
      }
      if (!settle()) return;
      stream.destroy();
      if (options.truncate) {
        chunks.push(chunk);
        resolve(whole());
      } else reject(bodyTooLarge(options));
    };
    const onAbort = () => {
      if (!settle()) return;
      stream.destroy();
      reject(abortReason(signal!));
    };
    stream.on('data', onData);
    stream.once('end', () => settle() && resolve(whole()));
    stream.on('error', (error: Error) => settle() && reject(error));
    stream.once(
      'close',
      () => settle() && reject(new Error(`${options.place}: the stream closed before its end`)),
    );
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
