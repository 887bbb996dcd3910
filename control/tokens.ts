/**
 * Bearer tokens: 32 random bytes behind a prefix that says what they are (`svc_pat_` for a
 * workspace, `svc_dpl_` for a deploy token), shown once and stored as their sha256 only.
 */
import { createHash, randomBytes } from 'node:crypto';

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
