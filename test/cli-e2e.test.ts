/**
 * svc as a user runs it: init from a URL served on loopback, fail-closed imports, the manual
 * provider, validate, publish/export, and the promise that no secret reaches a written file.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { svc } from './helpers/run-cli.js';
import { type StaticServer, serveRoutes } from './helpers/serve-static.js';

const demoSpec = readFileSync(new URL('../fixtures/demo/openapi.yaml', import.meta.url), 'utf8');
const SECRET = 'sk-live-DO-NOT-LEAK-4242';
const SOURCE_TOKEN = 'ghp_source-token-DO-NOT-LEAK';

function allFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => path.join(dir, p))
    .filter((p) => statSync(p).isFile());
}

let work: string;
let api: StaticServer;

beforeAll(async () => {
  work = mkdtempSync(path.join(tmpdir(), 'svc-cli-'));
  api = await serveRoutes({
    '/openapi.yaml': (_req, res) => res.writeHead(200, { 'content-type': 'application/yaml' }).end(demoSpec),
    '/not-openapi.yaml': (_req, res) => res.writeHead(200).end('hello: world\n'),
    '/broken.json': (_req, res) => res.writeHead(200).end('{"openapi": "3.0.0", "info": '),
    '/gone.yaml': (_req, res) => res.writeHead(500).end('upstream exploded'),
  });
});

afterAll(async () => {
  await api.close();
  rmSync(work, { recursive: true, force: true });
});

describe('svc init from an OpenAPI URL', () => {
  it('imports every endpoint as a disabled tool and prints the checklist', async () => {
    const run = await svc(['init', 'mcp/books', '--name', 'Books', '--openapi', `${api.url}/openapi.yaml`], {
      cwd: work,
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/Tools\s+4/);
    expect(run.stdout).toMatch(/Resources\s+0/);
    expect(run.stdout).not.toMatch(/Skills/);
    const dir = path.join(work, 'mcp/books');
    const config = YAML.parse(readFileSync(path.join(dir, 'config.yaml'), 'utf8'));
    expect(config.server).toEqual({ id: 'books', name: 'Default', published: false });
    expect(config.source).toEqual({ kind: 'openapi', location: `${api.url}/openapi.yaml` });
    expect(config.apiBaseUrl).toBe('http://127.0.0.1:4010');
    const tools = readdirSync(path.join(dir, 'Tools')).filter((f) => f.endsWith('.yaml'));
    expect(tools.sort()).toEqual(['addBook.yaml', 'deleteBook.yaml', 'getBook.yaml', 'listBooks.yaml']);
    for (const file of tools) {
      const text = readFileSync(path.join(dir, 'Tools', file), 'utf8');
      expect(text.startsWith('# yaml-language-server: $schema=')).toBe(true);
      expect(YAML.parse(text).enabled).toBe(false);
    }
    expect(existsSync(path.join(dir, 'docker-compose.yml'))).toBe(true);
    expect(existsSync(path.join(dir, '.env.example'))).toBe(true);
    expect((await svc(['validate', 'mcp/books'], { cwd: work })).code).toBe(0);
  });

  it('refuses to init over an existing folder', async () => {
    const run = await svc(['init', 'mcp/books', '--name', 'Again', '--openapi', `${api.url}/openapi.yaml`], {
      cwd: work,
    });
    expect(run.code).toBe(3);
    expect(run.stderr).toMatch(/FOLDER_EXISTS.*svc import/s);
  });

  it.each([
    ['unreachable', '/gone.yaml', /SOURCE_UNREACHABLE.*500/s],
    ['not OpenAPI', '/not-openapi.yaml', /SPEC_INVALID/],
    ['not JSON or YAML', '/broken.json', /SOURCE_NOT_JSON_OR_YAML|SPEC_INVALID/],
    ['missing', '/nowhere.yaml', /SOURCE_UNREACHABLE.*404/s],
  ])(
    'fails closed when the document is %s: exit 3, the URL named, nothing written',
    async (_what, route, message) => {
      const run = await svc(
        ['init', `mcp/bad${route.replace(/\W/g, '')}`, '--name', 'Bad', '--openapi', `${api.url}${route}`],
        {
          cwd: work,
        },
      );
      expect(run.code).toBe(3);
      expect(run.stderr).toMatch(message);
      expect(run.stderr).toContain(route);
      expect(existsSync(path.join(work, `mcp/bad${route.replace(/\W/g, '')}`))).toBe(false);
    },
  );
});

describe('the manual provider', () => {
  it('creates an app, adds tools by hand, validates, and exports only once published', async () => {
    const init = await svc(
      [
        'init',
        'mcp/crm',
        '--name',
        'CRM',
        '--manual',
        '--base-url',
        'https://crm.example.test/api',
        '--auth',
        'api_key',
        '--api-key-in',
        'header',
        '--api-key-name',
        'X-API-Key',
      ],
      { cwd: work, env: { SVC_UPSTREAM_SECRET: SECRET } },
    );
    expect(init.code).toBe(0);
    const add = await svc(
      [
        'tool',
        'add',
        'mcp/crm',
        '--method',
        'GET',
        '--path',
        '/contacts/{id}',
        '--param',
        'id:path:string:required',
      ],
      { cwd: work },
    );
    expect(add.code).toBe(0);
    expect(add.stdout).toMatch(/get_contacts_by_id|Tools\//);
    const again = await svc(
      [
        'tool',
        'add',
        'mcp/crm',
        '--method',
        'POST',
        '--path',
        '/contacts',
        '--param',
        'name:body:string:required',
      ],
      { cwd: work },
    );
    expect(again.code).toBe(0);

    const dir = path.join(work, 'mcp/crm');
    const toolFiles = readdirSync(path.join(dir, 'Tools'));
    expect(toolFiles).toHaveLength(2);
    const tool = YAML.parse(
      readFileSync(
        path.join(dir, 'Tools', toolFiles.find((f) => /contacts/.test(f) && f.includes('id')) ?? ''),
        'utf8',
      ),
    );
    expect(tool).toMatchObject({
      origin: 'manual',
      enabled: false,
      locations: { id: { in: 'path', name: 'id' } },
    });

    expect((await svc(['validate', 'mcp/crm'], { cwd: work })).code).toBe(0);

    const early = await svc(['export', 'mcp/crm', '--json'], { cwd: work });
    expect(early.code).toBe(3);
    expect(early.stderr).toMatch(/NOT_PUBLISHED.*svc publish/s);

    expect((await svc(['publish', 'mcp/crm'], { cwd: work })).code).toBe(0);
    const exported = await svc(['export', 'mcp/crm', '--json'], { cwd: work });
    expect(exported.code).toBe(0);
    const { server, files } = JSON.parse(exported.stdout);
    expect(server.server.published).toBe(true);
    expect(server.auth).toEqual({
      mode: 'api_key',
      hasAuthSecret: true,
      apiKey: { in: 'header', name: 'X-API-Key' },
    });
    expect(Object.keys(files)).toContain('config.yaml');
    expect(Object.keys(files).some((p) => p.startsWith('.svc/'))).toBe(false);

    const out = await svc(['export', 'mcp/crm', '--out', 'exported/crm'], { cwd: work });
    expect(out.code).toBe(0);
    expect(readFileSync(path.join(work, 'exported/crm/config.yaml'), 'utf8')).toBe(files['config.yaml']);
  });

  it('validate names the file, line and field of a broken tool', async () => {
    const dir = path.join(work, 'mcp/crm');
    const file = path.join(dir, 'Tools', readdirSync(path.join(dir, 'Tools'))[0] as string);
    writeFileSync(file, readFileSync(file, 'utf8').replace('enabled: false', 'enabled: maybe'));
    const run = await svc(['validate', 'mcp/crm'], { cwd: work });
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(new RegExp(`${path.basename(file)}:\\d+`));
    expect(run.stderr).toMatch(/enabled/);
  });
});

describe('secrets', () => {
  it('never reach a written file, whatever flags and environment carried them', async () => {
    const env = { SVC_UPSTREAM_SECRET: SECRET, SVC_DEPLOY_TOKEN: SOURCE_TOKEN, MCP_RUNTIME_PORT: '3999' };
    const run = await svc(
      ['init', 'mcp/secret', '--name', 'Secret', '--openapi', `${api.url}/openapi.yaml`, '--auth', 'bearer'],
      { cwd: work, env },
    );
    expect(run.code).toBe(0);
    const leaked = await svc(
      ['init', 'mcp/leak', '--name', 'Leak', '--openapi', `${api.url}/openapi.yaml?api_key=${SECRET}`],
      { cwd: work, env },
    );
    expect(leaked.code).toBe(2);
    expect(leaked.stderr).not.toContain(SECRET);
    expect(existsSync(path.join(work, 'mcp/leak'))).toBe(false);

    const written = allFiles(work);
    expect(written.length).toBeGreaterThan(10);
    for (const file of written) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toContain(SECRET);
      expect(text, file).not.toContain(SOURCE_TOKEN);
    }
    const config = YAML.parse(readFileSync(path.join(work, 'mcp/secret/config.yaml'), 'utf8'));
    expect(config.auth).toEqual({ mode: 'bearer', hasAuthSecret: true });
    expect(config.requiredEnv).toEqual(['SVC_UPSTREAM_SECRET']);
    expect(readFileSync(path.join(work, 'mcp/secret/.env.example'), 'utf8')).toMatch(
      /^#?\s*SVC_UPSTREAM_SECRET=\s*$/m,
    );
  });
});
