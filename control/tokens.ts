/**
 * Bearer tokens: 32 random bytes behind a prefix that says what they are (`svc_pat_` for a
 * workspace, `svc_dpl_` for a deploy token), shown once and stored as their sha256 only.
 */
import { createHash, randomBytes } from 'node:crypto';
import { SvcError } from '../core/svc-error.js';

export const WORKSPACE_TOKEN_PREFIX = 'svc_pat_';
export const DEPLOY_TOKEN_PREFIX = 'svc_dpl_';

export function newToken(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url')}`;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerToken(header: string | undefined | null): string | undefined {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '');
  return match?.[1];
}

/** The expiry of a token valid for `days` whole days from `nowMs` (1..3650), or undefined. */
export function expiryFromDays(days: unknown, nowMs: number): string | undefined {
  const n = typeof days === 'string' && /^\d+$/.test(days.trim()) ? Number(days) : days;
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 1 || n > 3650) return undefined;
  return new Date(nowMs + n * 24 * 60 * 60 * 1000).toISOString();
}

/** SVC_CONTROL_TRUST_PROXY: 1/true/yes or 0/false/no (default off). */
export function parseTrustProxy(value: string | undefined): boolean {
  const v = value?.trim().toLowerCase() ?? '';
  if (v === '' || v === '0' || v === 'false' || v === 'no') return false;
  if (v === '1' || v === 'true' || v === 'yes') return true;
  throw new SvcError('USAGE', `SVC_CONTROL_TRUST_PROXY must be 1 or 0, not "${value}"`, {
    place: { field: 'SVC_CONTROL_TRUST_PROXY' },
  });
}
