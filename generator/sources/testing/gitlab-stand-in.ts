/**
 * A local stand-in of the GitLab endpoints svc talks to, on loopback: the OAuth device flow
 * (/oauth/authorize_device, /oauth/token with the device grant), the browser flow (a consent page
 * at /oauth/authorize whose button redirects to the loopback redirect URI with a code; the code
 * traded once, with the PKCE verifier, at /oauth/token), refresh tokens that rotate and
 * are refused once spent (/oauth/token with refresh_token), and the projects API
 * (GET /api/v4/projects?membership=true&simple=true) with GitLab's offset pagination headers
 * (x-page, x-next-page, x-total, Link) and 401 for an access token that is unknown or expired.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface GitlabProject {
  path_with_namespace: string;
  default_branch?: string;
  visibility?: 'public' | 'internal' | 'private';
}

export interface GitlabStandInOptions {
  /** The OAuth application's client id (default app-1). */
  clientId?: string;
  /** A refresh token already granted (as if made elsewhere), usable once. */
  refreshToken?: string;
  /** Device flow: how many polls answer authorization_pending before the grant (default 2). */
  pendingPolls?: number;
  /** The projects the grant's user is a member of, in GitLab's order (by id, newest first). */
  projects?: GitlabProject[];
  /** Answer pages with a Link header only, as GitLab's keyset pagination does (no x-next-page). */
  linkOnly?: boolean;
}

export interface GitlabStandIn {
  url: string;
  /** Refresh tokens issued and not spent yet. */
  live: Set<string>;
  /** Refresh tokens presented that were spent (or never issued): a client reusing one shows here. */
  spent: string[];
  /** Access tokens that are valid now. */
  accessTokens: Set<string>;
  /** How many refresh grants succeeded. */
  refreshes: number;
  /** Device flow polls seen. */
  polls: number;
  /** Browser flow: the authorization requests seen (their query), and the code exchanges refused. */
  authorizations: Record<string, string>[];
  refusedCodes: string[];
  /** Every token handed out (refresh and access): none may be written in the clear. */
  secrets: string[];
  /** The newest refresh token issued. */
  latestRefreshToken(): string;
  /** Every access token issued so far expires (GitLab answers 401 invalid_token for them). */
  expireAccessTokens(): void;
  /** Called before a projects page is answered, with its page number (1-based). */
  onProjectsPage?: (page: number) => void;
  /** The projects requests seen: page asked and the answer's status. */
  projectRequests: { page: number; status: number }[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c) => {
      text += c;
    });
    req.on('end', () => resolve(text));
  });
}

function json(
  res: ServerResponse,
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(value));
}

export async function startGitlabStandIn(options: GitlabStandInOptions = {}): Promise<GitlabStandIn> {
  const clientId = options.clientId ?? 'app-1';
  const pendingPolls = options.pendingPolls ?? 2;
  const projects = options.projects ?? [];
  let latest = options.refreshToken ?? '';
  const state: GitlabStandIn = {
    url: '',
    live: new Set(options.refreshToken ? [options.refreshToken] : []),
    spent: [],
    accessTokens: new Set(),
    refreshes: 0,
    polls: 0,
    authorizations: [],
    refusedCodes: [],
    secrets: options.refreshToken ? [options.refreshToken] : [],
    latestRefreshToken: () => latest,
    expireAccessTokens: () => state.accessTokens.clear(),
    projectRequests: [],
    close: async () => {},
  };

  function grant(res: ServerResponse): void {
    latest = `glrt-${randomBytes(8).toString('hex')}`;
    state.live.add(latest);
    const access = `gloas-${randomBytes(8).toString('hex')}`;
    state.accessTokens.add(access);
    state.secrets.push(latest, access);
    json(res, 200, { access_token: access, token_type: 'bearer', expires_in: 7200, refresh_token: latest });
  }

  async function token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const form = new URLSearchParams(await body(req));
    if (form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:device_code') {
      if (form.get('device_code') !== 'dev-1' || form.get('client_id') !== clientId)
        return json(res, 400, { error: 'invalid_grant' });
      if (++state.polls <= pendingPolls) return json(res, 400, { error: 'authorization_pending' });
      return grant(res);
    }
    if (form.get('grant_type') === 'authorization_code') {
      const code = form.get('code') ?? '';
      const issued = codes.get(code);
      codes.delete(code);
      const verifier = form.get('code_verifier') ?? '';
      const ok =
        issued !== undefined &&
        form.get('client_id') === clientId &&
        form.get('redirect_uri') === issued.redirectUri &&
        createHash('sha256').update(verifier).digest('base64url') === issued.challenge;
      if (!ok) {
        state.refusedCodes.push(code);
        return json(res, 400, { error: 'invalid_grant' });
      }
      return grant(res);
    }
    const given = form.get('refresh_token') ?? '';
    if (
      form.get('grant_type') !== 'refresh_token' ||
      form.get('client_id') !== clientId ||
      !state.live.has(given)
    ) {
      if (given) state.spent.push(given);
      return json(res, 400, { error: 'invalid_grant' });
    }
    state.live.delete(given);
    state.refreshes++;
    grant(res);
  }

  function listProjects(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const page = Math.max(1, Number(url.searchParams.get('page') ?? '1') || 1);
    state.onProjectsPage?.(page);
    const bearer = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    if (!state.accessTokens.has(bearer)) {
      state.projectRequests.push({ page, status: 401 });
      json(res, 401, {
        error: 'invalid_token',
        error_description: 'Token is expired. You can either do re-authorization or token refresh.',
      });
      return;
    }
    if (url.searchParams.get('membership') !== 'true' || url.searchParams.get('simple') !== 'true') {
      state.projectRequests.push({ page, status: 400 });
      json(res, 400, { error: 'svc asks for membership=true&simple=true' });
      return;
    }
    const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? '20') || 20));
    const total = Math.ceil(projects.length / perPage);
    const next = page < total ? page + 1 : undefined;
    const link = (p: number) => {
      const u = new URL(url);
      u.searchParams.set('page', String(p));
      return u.toString();
    };
    const links = [
      ...(next ? [`<${link(next)}>; rel="next"`] : []),
      `<${link(1)}>; rel="first"`,
      `<${link(Math.max(total, 1))}>; rel="last"`,
    ];
    const headers: Record<string, string> = { link: links.join(', ') };
    if (!options.linkOnly) {
      Object.assign(headers, {
        'x-page': String(page),
        'x-per-page': String(perPage),
        'x-next-page': next ? String(next) : '',
        'x-total': String(projects.length),
        'x-total-pages': String(total),
      });
    }
    state.projectRequests.push({ page, status: 200 });
    json(res, 200, projects.slice((page - 1) * perPage, page * perPage), headers);
  }

  /** Codes issued by the consent page, each usable once, with what they were issued for. */
  const codes = new Map<string, { redirectUri: string; challenge: string }>();

  /** The consent page: an "Authorize" button that redirects to the client's loopback with a code. */
  function authorize(res: ServerResponse, url: URL): void {
    const q = Object.fromEntries(url.searchParams);
    state.authorizations.push(q);
    const redirect = q.redirect_uri ?? '';
    const valid =
      q.client_id === clientId &&
      q.response_type === 'code' &&
      q.code_challenge_method === 'S256' &&
      (q.code_challenge ?? '').length >= 43 &&
      /^http:\/\/127\.0\.0\.1:\d+\/callback$/.test(redirect);
    if (!valid) {
      res.writeHead(400, { 'content-type': 'text/plain' }).end('The redirect URI included is not valid.');
      return;
    }
    const code = `code-${randomBytes(8).toString('hex')}`;
    codes.set(code, { redirectUri: redirect, challenge: q.code_challenge as string });
    const back = new URL(redirect);
    back.searchParams.set('code', code);
    back.searchParams.set('state', q.state ?? '');
    const deny = new URL(redirect);
    deny.searchParams.set('error', 'access_denied');
    deny.searchParams.set('state', q.state ?? '');
    const attr = (t: string) => t.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!DOCTYPE html><html><head><title>Authorize application</title></head><body><h1>Authorize ${attr(clientId)}?</h1><a id="authorize" href="${attr(back.toString())}">Authorize</a> <a id="deny" href="${attr(deny.toString())}">Deny</a></body></html>`,
      );
  }

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', state.url);
    if (req.method === 'GET' && url.pathname === '/oauth/authorize') return authorize(res, url);
    if (req.method === 'POST' && url.pathname === '/oauth/authorize_device') {
      void body(req).then((text) => {
        if (new URLSearchParams(text).get('client_id') !== clientId)
          return json(res, 401, { error: 'invalid_client' });
        json(res, 200, {
          device_code: 'dev-1',
          user_code: 'WXYZ-1234',
          verification_uri: `${state.url}/oauth/device`,
          expires_in: 30,
          interval: 0,
        });
      });
      return;
    }
    if (req.method === 'POST' && url.pathname === '/oauth/token') return void token(req, res);
    if (req.method === 'GET' && url.pathname === '/api/v4/projects') return listProjects(req, res, url);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () => new Promise((resolve) => server.close(() => resolve()));
  return state;
}
