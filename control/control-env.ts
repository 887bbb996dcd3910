/**
 * The control service's network settings from the environment, read the same by its container
 * entry (main.ts) and by `svc control serve`.
 */
import { SvcError } from '../core/svc-error.js';

/** SVC_GIT_TOKEN_HOSTS: `host[:port]` names separated by commas (no scheme, no path). */
export function parseHostList(text: string | undefined): string[] {
  const hosts = (text ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter(Boolean);
  for (const host of hosts) {
    if (!/^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:.]+\](:\d{1,5})?$/.test(host)) {
      throw new SvcError(
        'USAGE',
        `SVC_GIT_TOKEN_HOSTS holds "${host}": give host names (host or host:port) separated by commas, without a scheme or path`,
        { place: { field: 'SVC_GIT_TOKEN_HOSTS' } },
      );
    }
  }
  return hosts;
}

export function parseAllowPrivate(text: string | undefined): boolean {
  const value = (text ?? '').trim();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new SvcError('USAGE', `SVC_CONTROL_ALLOW_PRIVATE is 1 or 0, not "${value}"`, {
    place: { field: 'SVC_CONTROL_ALLOW_PRIVATE' },
  });
}
