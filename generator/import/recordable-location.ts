/**
 * A source location as it may be written into the folder's history (and so into git): a URL
 * loses its user:password and the values of query parameters that look like credentials.
 */
const SECRET_PARAM = /key|token|secret|sig|pass|auth|credential|session|code/i;

export function recordableLocation(location: string): string {
  if (!/^https?:\/\//i.test(location)) return location;
  let url: URL;
  try {
    url = new URL(location);
  } catch {
    return location.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '');
  }
  url.username = '';
  url.password = '';
  for (const name of [...new Set(url.searchParams.keys())]) {
    if (SECRET_PARAM.test(name)) url.searchParams.set(name, 'REDACTED');
  }
  return url.href;
}
