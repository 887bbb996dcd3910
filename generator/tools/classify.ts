import type { SvcTool } from '../../schemas/types.js';

/**
 * Classification from method and path shape (spec 2.4): GET /users → list, GET /users/{id} →
 * get, POST /users → create, PATCH → update, PUT → replace, DELETE → delete; a POST on a
 * verb-like sub-path (/users/{id}/activate, /jobs/{id}:cancel) is an action.
 */
export function classify(method: string, path: string): SvcTool['classification'] {
  const segments = path.split('/').filter(Boolean);
  const last = segments[segments.length - 1] ?? '';
  const endsWithParam = /^\{[^}]+\}$/.test(last);
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
      if (endsWithParam || last === '') return 'get';
      return looksLikeCollection(last) ? 'list' : 'get';
    case 'POST':
      if (endsWithParam || last.includes(':')) return 'action';
      return last === '' || looksLikeCollection(last) ? 'create' : 'action';
    case 'PUT':
      return 'replace';
    case 'PATCH':
      return 'update';
    case 'DELETE':
      return 'delete';
    default:
      return 'action';
  }
}

/** A plural-looking literal segment ("users", "line-items", "addresses"), not "status" or "access". */
function looksLikeCollection(segment: string): boolean {
  const word = segment.toLowerCase().replace(/\{[^}]*\}/g, '');
  if (/(ss|us|is|news)$/.test(word)) return false;
  return /[a-z]s$/.test(word) || /(data|list|items|people|children)$/.test(word);
}
