/**
 * Where a kept credential may be sent: a URL prefix recorded when the credential was given (a token
 * connection's `--url`, a control-service server's source credential). A folder's config.yaml is
 * written by whoever can push; naming a repository elsewhere must not carry the token there.
 *
 * A scope is an https URL (http only to a loopback host) without credentials, query or fragment; a
 * URL is in scope when it has the same origin and its path is the scope's path or lies under it.
 */
import { SvcError } from '../../core/svc-error.js';

function loopback(url: URL): boolean {
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return host === 'localhost' || host === '::1' || /^127\./.test(host);
}

/** The scope as recorded (origin + path without a trailing '/'); throws USAGE naming `field`. */
export function credentialScope(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new SvcError('USAGE', `${field} must be the URL the credential is for (https://host/…)`, {
      place: { field },
    });
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback(url))) {
    throw new SvcError(
      'USAGE',
      `${field} must be an https URL (http only to a loopback host): a credential never goes over plain http`,
      { place: { field } },
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new SvcError('USAGE', `${field} must be a URL without credentials, query or fragment`, {
      place: { field },
    });
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** Whether `target` lies within `scope` (same origin; the scope's path or below it). */
export function inScope(target: string, scope: string): boolean {
  let url: URL;
  let base: URL;
  try {
    url = new URL(target);
    base = new URL(scope);
  } catch {
    return false;
  }
  if (url.origin !== base.origin) return false;
  const prefix = base.pathname.replace(/\/+$/, '');
  return prefix === '' || url.pathname === prefix || url.pathname.startsWith(`${prefix}/`);
}

/** `url` as an error may name it: origin and path, no query or credentials. */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return JSON.stringify(url.slice(0, 200));
  }
}
