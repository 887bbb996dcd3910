import { timingSafeEqual } from 'node:crypto';

/** String equality in time independent of where the strings differ (secrets, CSRF tokens). */
export function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}
