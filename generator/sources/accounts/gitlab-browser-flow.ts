/**
 * `svc git connect gitlab --browser`: the OAuth 2.0 authorization-code grant with PKCE (RFC 7636)
 * and a loopback redirect (RFC 8252 §7.3), as GitLab serves it to public applications. svc listens
 * on 127.0.0.1 (an ephemeral port unless one is given: register `http://127.0.0.1/callback` on
 * the application, or that port when the instance matches ports exactly), the user approves in a
 * browser, GitLab redirects to the loopback with a code, and svc trades the code and its verifier
 * for the grant. A `state` nobody else knows ties the redirect to this run; only the refresh token
 * is returned for keeping.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SvcError } from '../../../core/svc-error.js';

export interface BrowserFlowOptions {
  instance: string;
  clientId: string;
  /** A confidential application's secret (GitLab asks for it at the token endpoint then). */
  clientSecret?: string;
  /** Default: read_repository read_api (spec 2.2: read the repository and list projects). */
  scope?: string;
  /** The loopback port; default 0 (the system picks one). */
  port?: number;
  /** Told once where the user approves; the flow then waits for the redirect. */
  onUrl: (url: string) => void;
  /** How long to wait for the approval; default 5 minutes. */
  timeoutMs?: number;
}

const CALLBACK = '/callback';

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The PKCE pair: a random verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
}

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const PAGE = (title: string, text: string) =>
  `<!DOCTYPE html><html><head><meta charset="utf-8"><title>${title}</title></head><body><h1>${title}</h1><p>${text}</p></body></html>`;

/** Waits on the loopback for the redirect that carries this run's state; its code, or an error. */
function awaitRedirect(server: Server, state: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(
          new SvcError(
            'SOURCE_UNREACHABLE',
            'GitLab did not send the browser back to svc in time (nothing was kept)',
            {
              details: [`waited ${Math.round(timeoutMs / 1000)} s`],
            },
          ),
        ),
      timeoutMs,
    );
    server.on('request', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const given = url.searchParams.get('state') ?? '';
      // Anything but this run's redirect (a favicon, a stray or forged request) is turned away.
      if (req.method !== 'GET' || url.pathname !== CALLBACK || !sameSecret(given, state)) {
        res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
        return;
      }
      clearTimeout(timer);
      const error = url.searchParams.get('error');
      const code = url.searchParams.get('code');
      if (error || !code) {
        res
          .writeHead(400, { 'content-type': 'text/html; charset=utf-8' })
          .end(PAGE('svc was not connected', 'GitLab did not grant access. You can close this tab.'));
        reject(
          new SvcError(
            'SOURCE_UNREACHABLE',
            `GitLab did not grant access: ${error ?? 'no code in the redirect'}`,
            {
              ...(url.searchParams.get('error_description')
                ? { details: [url.searchParams.get('error_description') as string] }
                : {}),
            },
          ),
        );
        return;
      }
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(PAGE('svc is connected', 'You can close this tab and go back to the terminal.'));
      resolve(code);
    });
  });
}

export async function gitlabBrowserFlow(opts: BrowserFlowOptions): Promise<{ refreshToken: string }> {
  const base = opts.instance.replace(/\/+$/, '');
  const server = createServer();
  server.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) =>
      reject(
        new SvcError(
          'PORT_IN_USE',
          `svc could not listen on 127.0.0.1:${opts.port ?? 0} for GitLab's redirect`,
          {
            cause: error,
          },
        ),
      ),
    );
    server.listen(opts.port ?? 0, '127.0.0.1', resolve);
  });
  try {
    const redirectUri = `http://127.0.0.1:${(server.address() as AddressInfo).port}${CALLBACK}`;
    const { verifier, challenge } = pkcePair();
    const state = base64url(randomBytes(16));
    const authorize = new URL(`${base}/oauth/authorize`);
    for (const [k, v] of Object.entries({
      client_id: opts.clientId,
      redirect_uri: redirectUri,
      response_type: 'code',
      state,
      scope: opts.scope ?? 'read_repository read_api',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    }))
      authorize.searchParams.set(k, v);
    const redirected = awaitRedirect(server, state, opts.timeoutMs ?? 5 * 60_000);
    opts.onUrl(authorize.toString());
    const code = await redirected;
    return await exchange(`${base}/oauth/token`, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      client_id: opts.clientId,
      code_verifier: verifier,
      ...(opts.clientSecret ? { client_secret: opts.clientSecret } : {}),
    });
  } finally {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function exchange(endpoint: string, form: Record<string, string>): Promise<{ refreshToken: string }> {
  let response: Response;
  try {
    response = await fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams(form),
    });
  } catch (error) {
    throw new SvcError('SOURCE_UNREACHABLE', `could not reach ${endpoint}`, {
      place: { url: endpoint },
      cause: error,
    });
  }
  const json = (await response.json().catch(() => ({}))) as { refresh_token?: unknown; error?: unknown };
  if (!response.ok || typeof json.refresh_token !== 'string') {
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `GitLab refused the authorization code (${String(json.error ?? `HTTP ${response.status}`)})`,
      { place: { url: endpoint } },
    );
  }
  return { refreshToken: json.refresh_token };
}
