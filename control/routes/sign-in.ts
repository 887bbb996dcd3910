/**
 * The status page's sign-in and sign-out. A workspace token given in the form becomes an opaque
 * session id in a SameSite=Strict cookie (the token itself is never stored in the browser);
 * sign-out ends the session on the server.
 */
import { randomBytes } from 'node:crypto';
import { type Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { problem } from '../middleware/problem.js';
import { HOME, SESSION_COOKIE, sessionCsrf } from '../middleware/workspace-auth.js';
import { safeEqual } from '../safe-equal.js';
import { renderLoginPage } from '../status-page.js';
import { htmlPage } from './html-page.js';
import type { RouteContext } from './route-context.js';

const LOGIN_CSRF_COOKIE = 'svc_login_csrf';
const DEFAULT_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const LOGIN_FORM_TTL_S = 60 * 60;

/** A status-page path to land on after signing in; anything else lands on the server list. */
const landing = (next: unknown): string =>
  typeof next === 'string' && (next === HOME || /^\/servers\/[^/?#\\]+\/imports$/.test(next)) ? next : HOME;

export function signInRoutes({ options, log }: RouteContext): Hono {
  const { store } = options;
  const sessionTtlMs = options.sessionTtlMs ?? DEFAULT_SESSION_TTL_MS;
  /** https as the client sees it: the request URL, or a trusted proxy's X-Forwarded-Proto. */
  const viaHttps = (c: Context): boolean => {
    if (new URL(c.req.url).protocol === 'https:') return true;
    if (!options.trustProxy) return false;
    return c.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
  };
  /**
   * The sign-in form with a fresh CSRF value, set as a short-lived SameSite=Strict cookie too:
   * a POST /login counts only when the form's value equals the cookie's (double submit), so
   * another site cannot sign a browser in with its own token.
   */
  const loginPage = (c: Context, next: string, error?: string, status: 200 | 401 | 403 = 200) => {
    const csrf = randomBytes(32).toString('base64url');
    setCookie(c, LOGIN_CSRF_COOKIE, csrf, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/login',
      maxAge: LOGIN_FORM_TTL_S,
      secure: viaHttps(c),
    });
    return htmlPage(c, (ctx) => renderLoginPage(next, ctx, error), csrf, status);
  };
  const routes = new Hono();

  routes.get('/login', (c) => loginPage(c, landing(c.req.query('next'))));
  routes.post('/login', async (c) => {
    const form = await c.req.parseBody();
    const next = landing(form.next);
    const expected = getCookie(c, LOGIN_CSRF_COOKIE);
    if (typeof form.csrf !== 'string' || !expected || !safeEqual(form.csrf, expected)) {
      return loginPage(
        c,
        next,
        'The sign-in form expired or did not come from this page: sign in again.',
        403,
      );
    }
    const token = typeof form.token === 'string' ? form.token.trim() : '';
    const auth = token ? await store.workspaceAuth(token) : undefined;
    if (!auth) {
      return loginPage(c, next, 'That is not a live workspace token of this service.', 401);
    }
    const session = await store.createSession(auth.id, sessionTtlMs);
    deleteCookie(c, LOGIN_CSRF_COOKIE, { path: '/login' });
    setCookie(c, SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'Strict',
      path: '/',
      maxAge: Math.floor(sessionTtlMs / 1000),
      secure: viaHttps(c),
    });
    log('signed_in', { tokenId: auth.id });
    return c.redirect(next, 303);
  });

  // Sign-out ends the session on the server (the cookie alone is worth nothing after it).
  routes.post('/logout', async (c) => {
    const session = getCookie(c, SESSION_COOKIE);
    if (session) {
      const form = await c.req.parseBody();
      if (typeof form.csrf !== 'string' || !safeEqual(form.csrf, sessionCsrf(session))) {
        return problem(c, 403, 'CSRF', 'the sign-out form did not come from this service');
      }
      await store.deleteSession(session);
    }
    deleteCookie(c, SESSION_COOKIE, { path: '/', secure: viaHttps(c) });
    return c.redirect('/login', 303);
  });

  return routes;
}
