/**
 * Job ids that sort in the order jobs were queued: UUIDv7 (RFC 9562), a millisecond timestamp
 * first. Jobs are claimed, listed and pruned by (created_at, id), and two jobs queued in the same
 * millisecond must still come out first in, first out; a random v4 id made that a coin toss.
 * Within a process the 12 bits after the timestamp count up (RFC 9562, 6.2, method 1), also when
 * the clock steps back; across processes, jobs queued in the same millisecond are concurrent
 * anyway. Hand-written because node:crypto makes only v4 ids.
 */
import { randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

export function newJobId(nowMs: number = Date.now()): string {
  let ms = Math.max(nowMs, lastMs);
  if (ms === lastMs) counter++;
  else counter = 0;
  if (counter > 0xfff) {
    ms = lastMs + 1;
    counter = 0;
  }
  lastMs = ms;
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (counter >> 8);
  bytes[7] = counter & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
