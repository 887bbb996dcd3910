import type { ParsedDocument } from './parse-document.js';

/**
 * The API base URL a document implies (spec 2.1: defaults to the document's origin).
 * OpenAPI 3: servers[0] with variables at their defaults, relative URLs resolved against the
 * document URL. Swagger 2: scheme://host + basePath. No trailing slash.
 */
export function defaultBaseUrl(parsed: ParsedDocument, origin: string): string | undefined {
  const doc = parsed.document;
  const originUrl = asHttpUrl(origin);
  if (parsed.version === 'swagger-2.0') {
    const basePath = typeof doc.basePath === 'string' ? doc.basePath : '';
    const schemes = Array.isArray(doc.schemes)
      ? (doc.schemes as unknown[]).filter((s) => typeof s === 'string')
      : [];
    if (typeof doc.host === 'string' && doc.host) {
      const scheme = schemes.includes('https')
        ? 'https'
        : schemes.includes('http')
          ? 'http'
          : (originUrl?.protocol.replace(':', '') ?? 'https');
      return trim(`${scheme}://${doc.host}${basePath}`);
    }
    return originUrl ? trim(`${originUrl.origin}${basePath}`) : undefined;
  }
  const servers = Array.isArray(doc.servers) ? (doc.servers as Array<Record<string, unknown>>) : [];
  const first = servers[0];
  if (first && typeof first.url === 'string') {
    const url = substitute(first.url, first.variables);
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return trim(url);
    if (originUrl) {
      try {
        return trim(new URL(url, originUrl).href);
      } catch {
        return undefined;
      }
    }
    return undefined;
  }
  return originUrl ? originUrl.origin : undefined;
}

function substitute(url: string, variables: unknown): string {
  const vars =
    variables && typeof variables === 'object' ? (variables as Record<string, { default?: unknown }>) : {};
  return url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const value = vars[name]?.default;
    return value === undefined ? whole : String(value);
  });
}

function asHttpUrl(origin: string): URL | undefined {
  if (!/^https?:\/\//i.test(origin)) return undefined;
  try {
    return new URL(origin);
  } catch {
    return undefined;
  }
}

function trim(url: string): string {
  return url.replace(/\/+$/, '');
}
