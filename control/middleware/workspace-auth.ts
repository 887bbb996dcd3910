/**
 * Workspace auth: the bearer header, or (for the status page's GETs only) the session cookie
 * set by /login, which holds an opaque session id (stored hashed, with an expiry), never the
 * token. The cookie is SameSite=Strict and never authorizes a change.
 */
import { createHmac } from 'node:crypto';
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { ControlStore } from '../store/control-store.js';
import { bearerToken } from '../tokens.js';
import { problem } from './problem.js';

export const SESSION_COOKIE = 'svc_session';
/** Where a sign-in lands unless it came from a status page. */
export const HOME = '/servers';

/** The CSRF token of a session's forms: derived from the session id, which only the cookie holds. */
export function sessionCsrf(sessionId: string): string {
  return createHmac('sha256', sessionId).update('svc-control csrf v1').digest('base64url');
}

export interface WorkspaceAuth {
  requireWorkspace: MiddlewareHandler;
  /** The snapshot takes a deploy token instead: requireWorkspace for every other /v1/servers/* path. */
  requireWorkspaceExceptSnapshot: MiddlewareHandler;
  /** The session's CSRF token when the page was opened with the session cookie. */
  pageCsrf(c: Context): string | undefined;
}

export function workspaceAuth(store: ControlStore): WorkspaceAuth {
  const csrfOf = new WeakMap<Request, string>();
  const requireWorkspace: MiddlewareHandler = async function requireWorkspace(c, next) {
    const token = bearerToken(c.req.header('authorization'));
    let ok = token !== undefined && (await store.workspaceAuth(token)) !== undefined;
    if (!token && c.req.method === 'GET') {
      const session = getCookie(c, SESSION_COOKIE);
      if (session && (await store.sessionAuth(session))) {
        ok = true;
        csrfOf.set(c.req.raw, sessionCsrf(session));
      }
    }
    if (!ok) {
      if (c.req.method === 'GET' && (c.req.path === HOME || c.req.path.startsWith('/servers/'))) {
        return c.redirect(`/login?next=${encodeURIComponent(c.req.path)}`, 303);
      }
      return problem(
        c,
        401,
        'UNAUTHORIZED',
        'a workspace token (Authorization: Bearer svc_pat_…) is required',
      );
    }
    await next();
  };
  return {
    requireWorkspace,
    requireWorkspaceExceptSnapshot: async function requireWorkspaceExceptSnapshot(c, next) {
      if (c.req.path.endsWith('/export/snapshot')) return next();
      return requireWorkspace(c, next);
    },
    pageCsrf: (c) => csrfOf.get(c.req.raw),
  };
}
