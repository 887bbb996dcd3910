/**
 * A loopback stand-in of the app-builder platform (Bubble), several apps on one server under
 * `/<app>/…` (origin template `http://127.0.0.1:<port>/{app}`), and optionally a second server
 * standing in for an app's custom Live domain. It serves `/api/1.1/meta`, the live and
 * version-test Swagger 2.0 documents, and pages by slug; run-mode protection (basic auth) guards
 * version-test pages only, as with the platform's "do not apply password for live".
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface StandInApp {
  /** The meta response; undefined → 404 (API disabled). */
  meta?: unknown;
  /** Swagger documents; undefined → 404 (Swagger hidden, or nothing deployed). */
  live?: unknown;
  main?: unknown;
  /** Page slugs published on each version; a page shows its slug in its title and body. */
  livePages: Set<string>;
  mainPages: Set<string>;
  /** Answer an unknown page with 200 and a "not found" page at the same URL, instead of redirecting. */
  soft404?: boolean;
  /** Run-mode protection of version-test pages. */
  runMode?: { user: string; password: string };
}

export interface Platform {
  /** The origin template, `{app}` for the app id. */
  origin: string;
  /** The custom domain server's origin (it serves the app named `customApp`). */
  customOrigin: string;
  apps: Map<string, StandInApp>;
  customApp: string | undefined;
  /** Every request: "<server> <path> <authorization or ->". */
  requests: string[];
  close(): Promise<void>;
}

export function newApp(init: Partial<StandInApp> = {}): StandInApp {
  return { livePages: new Set(), mainPages: new Set(), ...init };
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function page(res: ServerResponse, slug: string): void {
  res
    .writeHead(200, { 'content-type': 'text/html' })
    .end(`<!DOCTYPE html><html><head><title>${slug}</title></head><body><div>${slug}</div></body></html>`);
}

/** Serves one app at `rest` (the path after the app prefix, if any). */
function serveApp(
  app: StandInApp,
  prefix: string,
  rest: string,
  req: IncomingMessage,
  res: ServerResponse,
  live: boolean,
): void {
  const test = rest.startsWith('/version-test/');
  const path = test ? rest.slice('/version-test'.length) : rest;
  if (path === '/api/1.1/meta' && app.meta !== undefined) {
    json(res, app.meta);
    return;
  }
  if (path === '/api/1.1/meta/swagger.json') {
    const doc = test ? app.main : live ? app.live : undefined;
    if (doc !== undefined) {
      json(res, doc);
      return;
    }
  }
  const slug = /^\/([a-z0-9_-]+)$/.exec(path)?.[1];
  if (slug === 'index') {
    page(res, 'index');
    return;
  }
  if (slug) {
    if (test && app.runMode) {
      const expected = `Basic ${Buffer.from(`${app.runMode.user}:${app.runMode.password}`).toString('base64')}`;
      if (req.headers.authorization !== expected) {
        res.writeHead(401, { 'www-authenticate': 'Basic realm="app"' }).end('unauthorized');
        return;
      }
    }
    const pages = test ? app.mainPages : app.livePages;
    if (pages.has(slug)) {
      page(res, slug);
      return;
    }
    if (app.soft404) {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Page not found</body></html>');
      return;
    }
    // Like the platform: an unknown page is sent to the index page.
    res.writeHead(302, { location: `${prefix}${test ? '/version-test' : ''}/index` }).end();
    return;
  }
  res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

export async function startPlatform(): Promise<Platform> {
  const apps = new Map<string, StandInApp>();
  const requests: string[] = [];
  const state = { customApp: undefined as string | undefined };
  const record = (where: string, req: IncomingMessage) =>
    requests.push(`${where} ${req.url} ${req.headers.authorization ?? '-'}`);
  const platform = createServer((req, res) => {
    record('platform', req);
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const [, appId, ...rest] = path.split('/');
    const app = apps.get(appId ?? '');
    if (!app) return void res.writeHead(404).end('no such app');
    // The platform serves the live version only when there is no custom domain.
    serveApp(app, `/${appId}`, `/${rest.join('/')}`, req, res, state.customApp !== appId);
  });
  const custom = createServer((req, res) => {
    record('custom', req);
    const app = apps.get(state.customApp ?? '');
    if (!app) return void res.writeHead(404).end('no app on this domain');
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    serveApp(app, '', path, req, res, true);
  });
  const origin = `${await listen(platform)}/{app}`;
  const customOrigin = await listen(custom);
  return {
    origin,
    customOrigin,
    apps,
    get customApp() {
      return state.customApp;
    },
    set customApp(value) {
      state.customApp = value;
    },
    requests,
    close: async () => {
      await Promise.all(
        [platform, custom].map((s) => new Promise<void>((resolve) => s.close(() => resolve()))),
      );
    },
  };
}

/** A small Swagger 2.0 document shaped like the platform's: Data API types and workflows. */
export function bubbleSwagger(options: {
  host: string;
  basePath: string;
  types: string[];
  workflows: string[];
}): unknown {
  const paths: Record<string, unknown> = {};
  const definitions: Record<string, unknown> = {};
  for (const type of options.types) {
    const ref = { $ref: `#/definitions/${type}` };
    const capitalized = type.charAt(0).toUpperCase() + type.slice(1);
    definitions[type] = {
      type: 'object',
      properties: {
        _id: { type: 'string', description: 'unique ID' },
        'Created Date': { type: 'string', format: 'date-time' },
        name_text: { type: 'string' },
        price_number: { type: 'number' },
      },
    };
    paths[`/obj/${type}`] = {
      get: {
        tags: [capitalized],
        summary: `Search for ${capitalized} objects`,
        parameters: [
          {
            name: 'constraints',
            in: 'query',
            type: 'string',
            description: 'JSON array of search constraints',
          },
          { name: 'cursor', in: 'query', type: 'integer' },
          { name: 'limit', in: 'query', type: 'integer' },
        ],
        responses: { '200': { description: 'The matching things', schema: { type: 'object' } } },
      },
      post: {
        tags: [capitalized],
        summary: `Create a new ${capitalized}`,
        parameters: [{ name: 'body', in: 'body', required: true, schema: ref }],
        responses: { '201': { description: 'Created' } },
      },
    };
    paths[`/obj/${type}/{UniqueID}`] = {
      parameters: [{ name: 'UniqueID', in: 'path', required: true, type: 'string' }],
      get: {
        tags: [capitalized],
        summary: `Retrieve a ${capitalized} by its unique ID`,
        responses: { '200': { description: 'The thing', schema: ref }, '404': { description: 'Not found' } },
      },
      patch: {
        tags: [capitalized],
        summary: `Modify a ${capitalized}`,
        parameters: [{ name: 'body', in: 'body', required: true, schema: ref }],
        responses: { '204': { description: 'Modified' } },
      },
      delete: {
        tags: [capitalized],
        summary: `Delete a ${capitalized}`,
        responses: { '204': { description: 'Deleted' } },
      },
    };
  }
  for (const workflow of options.workflows) {
    paths[`/wf/${workflow}`] = {
      post: {
        tags: ['Workflows'],
        summary: `Trigger the ${workflow} workflow`,
        parameters: [
          {
            name: 'body',
            in: 'body',
            schema: { type: 'object', properties: { order_id: { type: 'string' } } },
          },
        ],
        responses: { '200': { description: 'Workflow ran' } },
      },
    };
  }
  return {
    swagger: '2.0',
    info: { title: 'Acme Shop', version: '1.0', description: 'The API of Acme Shop' },
    host: options.host,
    basePath: options.basePath,
    schemes: ['https'],
    securityDefinitions: { bearer: { type: 'apiKey', name: 'Authorization', in: 'header' } },
    paths,
    definitions,
  };
}
