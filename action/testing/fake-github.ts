/**
 * A small fake of the GitHub REST API on 127.0.0.1, enough for the action: list issue comments (with
 * per_page, page and Link headers, as GitHub paginates), create a comment, update a comment. It records
 * every request so tests can check what the action sent (and that no token leaked anywhere else).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: 'User' | 'Bot' };
  issue: number;
}

export interface FakeRequest {
  method: string;
  url: string;
  authorization?: string;
  body?: unknown;
}

export interface FakeGitHub {
  url: string;
  comments: FakeComment[];
  requests: FakeRequest[];
  addComment(issue: number, body: string, login?: string): FakeComment;
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export async function startFakeGitHub(opts: {
  owner: string;
  repo: string;
  token?: string;
  /** Refuse writes with 403, as GitHub does for a fork's read-only GITHUB_TOKEN. */
  readOnly?: boolean;
}): Promise<FakeGitHub> {
  const comments: FakeComment[] = [];
  const requests: FakeRequest[] = [];
  let nextId = 1000;
  const addComment = (issue: number, body: string, login = 'someone'): FakeComment => {
    const c: FakeComment = {
      id: nextId++,
      body,
      issue,
      user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' },
    };
    comments.push(c);
    return c;
  };
  const repoPath = `/repos/${opts.owner}/${opts.repo}`;
  let base = '';
  const toJson = (c: FakeComment) => ({
    id: c.id,
    body: c.body,
    user: c.user,
    html_url: `${base}/${opts.owner}/${opts.repo}/issues/${c.issue}#issuecomment-${c.id}`,
  });

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', base);
    const text = await readBody(req);
    const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
    requests.push({
      method: req.method ?? '',
      url: url.pathname + url.search,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
      ...(body ? { body } : {}),
    });
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
      res.end(JSON.stringify(payload));
    };
    if (opts.token && req.headers.authorization !== `token ${opts.token}`) {
      return send(401, { message: 'Bad credentials' });
    }
    if (opts.readOnly && req.method !== 'GET') {
      return send(403, { message: 'Resource not accessible by integration' });
    }
    const list = new RegExp(`^${repoPath}/issues/(\\d+)/comments$`).exec(url.pathname);
    const one = new RegExp(`^${repoPath}/issues/comments/(\\d+)$`).exec(url.pathname);
    if (list && req.method === 'GET') {
      const issue = Number(list[1]);
      const perPage = Math.min(100, Math.max(1, Number(url.searchParams.get('per_page') ?? 30)));
      const page = Math.max(1, Number(url.searchParams.get('page') ?? 1));
      const all = comments.filter((c) => c.issue === issue);
      const last = Math.max(1, Math.ceil(all.length / perPage));
      const links: string[] = [];
      const link = (p: number, rel: string) => {
        const u = new URL(url.toString());
        u.searchParams.set('per_page', String(perPage));
        u.searchParams.set('page', String(p));
        links.push(`<${u.toString()}>; rel="${rel}"`);
      };
      if (page < last) {
        link(page + 1, 'next');
        link(last, 'last');
      }
      if (page > 1) {
        link(1, 'first');
        link(page - 1, 'prev');
      }
      return send(
        200,
        all.slice((page - 1) * perPage, page * perPage).map(toJson),
        links.length ? { link: links.join(', ') } : {},
      );
    }
    if (list && req.method === 'POST') {
      if (typeof body?.['body'] !== 'string') return send(422, { message: 'body is required' });
      const c = addComment(Number(list[1]), body['body'], 'github-actions[bot]');
      return send(201, toJson(c));
    }
    if (one && req.method === 'PATCH') {
      const c = comments.find((x) => x.id === Number(one[1]));
      if (!c) return send(404, { message: 'Not Found' });
      if (typeof body?.['body'] !== 'string') return send(422, { message: 'body is required' });
      c.body = body['body'];
      return send(200, toJson(c));
    }
    return send(404, { message: `Not Found: ${req.method} ${url.pathname}` });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    comments,
    requests,
    addComment,
    close: () => new Promise((resolve, reject) => server.close((e) => (e ? reject(e) : resolve()))),
  };
}
