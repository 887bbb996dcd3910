/**
 * The status page's sign-in through `app.request()` (no port): the cookie holds an opaque session
 * id with an expiry, never the token; `Secure` behind https (the request URL, or a trusted
 * proxy's X-Forwarded-Proto only when the operator says so); CSRF on sign-in and sign-out; the
 * security headers on every answer and a nonce CSP on pages.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlApp } from './control-app.js';
import type { PublishedSnapshots } from './published-snapshot.js';
import { secretBox } from '../core/secret-box.js';
import { ControlStore } from './store/control-store.js';
import { openDatabase } from './store/open-database.js';

let dir: string;
let store: ControlStore;
let pat: { id: string; token: string };

const appWith = (trustProxy: boolean) =>
  createControlApp({
    store,
    snapshots: {} as PublishedSnapshots,
    secrets: secretBox(Buffer.alloc(32, 1)),
    repository: () => Promise.reject(new Error('no repositories here')),
    cwd: dir,
    sessionTtlMs: 60 * 60 * 1000,
    trustProxy,
  });

/** The cookies a response sets, by name: value and attributes. */
function setCookies(res: Response): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of res.headers.getSetCookie()) out.set(line.slice(0, line.indexOf('=')), line);
  return out;
}
const cookieValue = (line: string | undefined) => line?.split(';')[0]?.split('=').slice(1).join('=') ?? '';

/** GET /login: the CSRF cookie and the form's hidden value. */
async function loginForm(app: ReturnType<typeof appWith>, base = 'http://control.test') {
  const res = await app.request(`${base}/login`);
  const html = await res.text();
  const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
  return { res, html, csrf, cookie: cookieValue(setCookies(res).get('svc_login_csrf')) };
}

async function signIn(
  app: ReturnType<typeof appWith>,
  opts: { base?: string; headers?: Record<string, string>; next?: string } = {},
) {
  const base = opts.base ?? 'http://control.test';
  const form = await loginForm(app, base);
  return app.request(`${base}/login`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      cookie: `svc_login_csrf=${form.cookie}`,
      ...opts.headers,
    },
    body: new URLSearchParams({ token: pat.token, csrf: form.csrf, next: opts.next ?? '' }).toString(),
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-session-'));
  const opened = await openDatabase({ dataDir: dir });
  store = new ControlStore({ db: opened.db, kind: opened.kind });
  pat = await store.createWorkspaceToken('browser');
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('status page sign-in', () => {
  it('sets an opaque session cookie with an expiry, not the token, and lands on the server list', async () => {
    const app = appWith(false);
    const res = await signIn(app);
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/servers');
    const line = setCookies(res).get('svc_session')!;
    expect(line).toBeDefined();
    const session = cookieValue(line);
    expect(session).not.toContain(pat.token);
    expect(session).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(line).toMatch(/HttpOnly/);
    expect(line).toMatch(/SameSite=Strict/);
    expect(line).toMatch(/Max-Age=3600/);
    expect(line).not.toMatch(/Secure/);
    // The landing page exists (it was a 404) and the session opens it.
    const home = await app.request('http://control.test/servers', {
      headers: { cookie: `svc_session=${session}` },
    });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Servers');
    // The token itself is not a session.
    const asCookie = await app.request('http://control.test/servers', {
      headers: { cookie: `svc_session=${pat.token}` },
    });
    expect(asCookie.status).toBe(303);
    expect((await app.request('http://control.test/')).headers.get('location')).toBe('/servers');
  });

  it('marks cookies Secure over https, and behind a proxy only when the operator trusts it', async () => {
    const https = await signIn(appWith(false), { base: 'https://control.test' });
    expect(setCookies(https).get('svc_session')).toMatch(/; Secure/);
    const forwarded = { 'x-forwarded-proto': 'https' };
    const untrusted = await signIn(appWith(false), { headers: forwarded });
    expect(setCookies(untrusted).get('svc_session')).not.toMatch(/Secure/);
    const trusted = await signIn(appWith(true), { headers: forwarded });
    expect(setCookies(trusted).get('svc_session')).toMatch(/; Secure/);
    const form = await loginForm(appWith(true), 'https://control.test');
    expect(setCookies(form.res).get('svc_login_csrf')).toMatch(/; Secure/);
  });

  it('refuses a sign-in without the form’s CSRF value', async () => {
    const app = appWith(false);
    const post = (cookie: string | undefined, csrf: string | undefined) =>
      app.request('http://control.test/login', {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          ...(cookie ? { cookie: `svc_login_csrf=${cookie}` } : {}),
        },
        body: new URLSearchParams({ token: pat.token, ...(csrf ? { csrf } : {}) }).toString(),
      });
    const form = await loginForm(app);
    for (const res of [
      await post(undefined, undefined),
      await post(undefined, form.csrf),
      await post(form.cookie, 'x'),
    ]) {
      expect(res.status).toBe(403);
      expect(setCookies(res).has('svc_session')).toBe(false);
      expect(await res.text()).toMatch(/sign in again/);
    }
    expect((await post(form.cookie, form.csrf)).status).toBe(303);
  });

  it('signs out with the session’s CSRF token and ends the session on the server', async () => {
    const app = appWith(false);
    const session = cookieValue(setCookies(await signIn(app)).get('svc_session'));
    const cookie = `svc_session=${session}`;
    const page = await (await app.request('http://control.test/servers', { headers: { cookie } })).text();
    const csrf = /action="\/logout".*?name="csrf" value="([^"]+)"/s.exec(page)?.[1];
    expect(csrf).toBeDefined();
    const logout = (body: Record<string, string>) =>
      app.request('http://control.test/logout', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
        body: new URLSearchParams(body).toString(),
      });
    expect((await logout({})).status).toBe(403);
    expect((await logout({ csrf: 'forged' })).status).toBe(403);
    expect((await app.request('http://control.test/servers', { headers: { cookie } })).status).toBe(200);
    const out = await logout({ csrf: csrf! });
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/login');
    expect(setCookies(out).get('svc_session')).toMatch(/Max-Age=0/);
    // The old cookie is worth nothing now.
    const after = await app.request('http://control.test/servers', { headers: { cookie } });
    expect(after.status).toBe(303);
    expect(after.headers.get('location')).toBe('/login?next=%2Fservers');
  });

  it('a session never authorizes a change, and ends when its token is revoked', async () => {
    const app = appWith(false);
    const made = await store.createWorkspaceToken('short');
    pat = made;
    const session = cookieValue(setCookies(await signIn(app)).get('svc_session'));
    const cookie = `svc_session=${session}`;
    const change = await app.request('http://control.test/v1/workspace/plan', {
      method: 'PUT',
      headers: { cookie, 'content-type': 'application/json' },
      body: '{"plan":"free"}',
    });
    expect(change.status).toBe(401);
    expect(await store.revokeWorkspaceToken(made.id)).toBe(true);
    expect((await app.request('http://control.test/servers', { headers: { cookie } })).status).toBe(303);
  });

  it('sends the security headers, and a nonce CSP on pages', async () => {
    const app = appWith(false);
    const { res, html } = await loginForm(app);
    const csp = res.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self'");
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(nonce).toBeDefined();
    expect(html).toContain(`<style nonce="${nonce}">`);
    for (const r of [
      res,
      await app.request('http://control.test/healthz'),
      await app.request('http://control.test/v1/servers'),
    ]) {
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    }
  });
});
