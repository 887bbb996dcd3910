/**
 * Tool names: from operationId, else method + path; sanitized to ^[A-Za-z0-9_-]{1,64}$;
 * over-long names keep a readable head and a short hash of the full name; collisions are
 * settled by (path, method) order, never by document key order.
 */
import { createHash } from 'node:crypto';
import type { Endpoint } from '../../schemas/types.js';

export const MAX_TOOL_NAME_LENGTH = 64;
const HASH_LENGTH = 6;

export function toolNameFor(endpoint: Pick<Endpoint, 'method' | 'path' | 'operationId'>): string {
  const raw = endpoint.operationId ?? nameFromPath(endpoint.method, endpoint.path);
  return shortenName(sanitizeToolName(raw) || sanitizeToolName(nameFromPath(endpoint.method, endpoint.path)));
}

/** GET /users/{id}/posts → get_users_by_id_posts */
export function nameFromPath(method: string, path: string): string {
  const parts = path
    .split('/')
    .filter(Boolean)
    .map((segment) => segment.replace(/\{([^}]+)\}/g, 'by_$1'));
  return [method.toLowerCase(), ...parts].join('_');
}

export function sanitizeToolName(raw: string): string {
  return raw
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9_-]+/g, '_')
    .replace(/_{2,}/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
}

/** Over-long names: head + "_" + 6 hex of sha256(full name); same input, same output. */
export function shortenName(name: string, max = MAX_TOOL_NAME_LENGTH): string {
  const limit = Math.max(HASH_LENGTH + 2, Math.min(max, MAX_TOOL_NAME_LENGTH));
  if (name.length <= limit) return name || 'tool';
  const head = name.slice(0, limit - HASH_LENGTH - 1).replace(/[_-]+$/, '');
  return `${head}_${shortHash(name)}`;
}

export function shortHash(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, HASH_LENGTH);
}

/**
 * Unique names for a list of endpoints, in the list's order. Candidates that collide (case
 * insensitively, since names become file names) are ranked by path then method; the first
 * keeps the name, the others get a hash of "METHOD path", which does not depend on what else
 * is in the document.
 */
export function uniqueToolNames(
  endpoints: readonly Pick<Endpoint, 'method' | 'path' | 'operationId'>[],
  max = MAX_TOOL_NAME_LENGTH,
): string[] {
  const candidates = endpoints.map((e) => shortenName(toolNameFor(e), max));
  const groups = new Map<string, number[]>();
  candidates.forEach((name, i) => {
    const key = name.toLowerCase();
    const group = groups.get(key);
    if (group) group.push(i);
    else groups.set(key, [i]);
  });
  const names = [...candidates];
  const taken = new Set(candidates.map((c) => c.toLowerCase()));
  for (const group of groups.values()) {
    if (group.length < 2) continue;
    const ranked = [...group].sort((a, b) => rank(endpoints[a]!, endpoints[b]!));
    for (const index of ranked.slice(1)) {
      const endpoint = endpoints[index]!;
      const suffix = `_${shortHash(`${endpoint.method} ${endpoint.path}`)}`;
      const base = candidates[index]!;
      let name = withSuffix(base, suffix, max);
      for (let n = 2; taken.has(name.toLowerCase()); n++) name = withSuffix(base, `${suffix}_${n}`, max);
      taken.add(name.toLowerCase());
      names[index] = name;
    }
  }
  return names;
}

function withSuffix(base: string, suffix: string, max: number): string {
  const limit = Math.min(max, MAX_TOOL_NAME_LENGTH);
  return `${base.slice(0, Math.max(1, limit - suffix.length)).replace(/[_-]+$/, '')}${suffix}`;
}

const METHOD_RANK = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];

function rank(a: Pick<Endpoint, 'method' | 'path'>, b: Pick<Endpoint, 'method' | 'path'>): number {
  if (a.path !== b.path) return a.path < b.path ? -1 : 1;
  return METHOD_RANK.indexOf(a.method) - METHOD_RANK.indexOf(b.method);
}
