import { describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { loadFolder } from '../../folder/load-folder.js';
import { sampleConfig, sampleFolderModel, sampleTool } from '../../folder/testing/sample-folder.js';
import { exportFolder } from './export-folder.js';
import { RUNTIME_IMAGE } from './render-compose.js';
import { renderConfig } from './render-config.js';
import { renderFolder, renderFolderChecked, renderOpenApi } from './render-folder.js';
import { renderTool, TOOL_KEY_ORDER } from './render-tool.js';

describe('renderFolder', () => {
  const files = renderFolder(sampleFolderModel(), { openapi: '{"openapi":"3.0.3","paths":{}}' });

  test('writes the standard folder, paths sorted', () => {
    expect(Object.keys(files)).toEqual([
      '.env.example',
      'Docs/guides/webhooks.md',
      'Docs/intro.mdx',
      'Prompts/summarize.md',
      'README.md',
      'Resources/by-id.md',
      'Skills/search-orders.md',
      'Tools/createOrder.yaml',
      'Tools/getOrder.yaml',
      'Tools/openapi.json',
      'Widgets/order-card.html',
      'Widgets/order-card.json',
      'config.yaml',
      'docker-compose.yml',
    ]);
  });

  test('generated files: LF only, no trailing spaces, final newline; YAML files carry the schema line', () => {
    const generated = [
      '.env.example',
      'README.md',
      'Tools/createOrder.yaml',
      'Tools/getOrder.yaml',
      'Tools/openapi.json',
      'Widgets/order-card.json',
      'config.yaml',
      'docker-compose.yml',
    ];
    for (const path of generated) {
      const text = files[path] ?? '';
      expect(text, path).not.toMatch(/\r/);
      expect(text, path).not.toMatch(/[ \t]$/m);
      expect(text.endsWith('\n') && !text.endsWith('\n\n'), path).toBe(true);
    }
    expect(files['config.yaml']).toMatch(
      /^# yaml-language-server: \$schema=https:\/\/svc\.dev\/schemas\/v1\/config\.schema\.json\n/,
    );
    expect(files['Tools/getOrder.yaml']).toMatch(
      /^# yaml-language-server: \$schema=https:\/\/svc\.dev\/schemas\/v1\/tool\.schema\.json\n/,
    );
    expect(files['docker-compose.yml']).toMatch(/^# yaml-language-server: \$schema=\S+compose-spec\.json\n/);
  });

  test('content: frontmatter in schema order with enabled, body exactly as given', () => {
    expect(files['Skills/search-orders.md']).toBe(
      '---\ndescription: Find orders.\nreferences:\n  - docs://guides/webhooks\nsortOrder: 1\nenabled: false\n---\n# Searching\n\nUse listOrders.\n',
    );
    expect(files['Docs/intro.mdx']).toBe('---\ntitle: Intro\nenabled: false\n---\nHello.');
    expect(files['Widgets/order-card.json']).toBe(
      '{\n  "csp": {\n    "connectDomains": [\n      "https://api.example.test"\n    ]\n  },\n  "description": "A card.",\n  "enabled": false\n}\n',
    );
  });

  test('Tools/openapi.json is the document with 2-space indentation; YAML sources are converted', () => {
    expect(files['Tools/openapi.json']).toBe('{\n  "openapi": "3.0.3",\n  "paths": {}\n}\n');
    expect(renderOpenApi('openapi: 3.1.0\ninfo:\n  title: T\n')).toBe(
      '{\n  "openapi": "3.1.0",\n  "info": {\n    "title": "T"\n  }\n}\n',
    );
  });

  test('docker-compose.yml: one service, the runtime image, read-only folder, port, healthcheck', () => {
    const compose = parse(files['docker-compose.yml'] ?? '');
    expect(Object.keys(compose.services)).toEqual(['runtime']);
    const runtime = compose.services.runtime;
    expect(runtime.image).toBe(RUNTIME_IMAGE);
    expect(runtime.environment).toEqual({
      SVC_FOLDER_PATH: '/folder',
      SVC_RUNTIME_MODE: 'standalone',
    });
    expect(runtime.volumes).toEqual(['./:/folder:ro']);
    const port = `$${'{'}MCP_RUNTIME_PORT:-3002}`;
    expect(RUNTIME_IMAGE).toBe(`$${'{'}SVC_RUNTIME_IMAGE:-ghcr.io/svc-dev/svc-runtime:0.1}`);
    expect(runtime.ports).toEqual([`${port}:${port}`]);
    expect(runtime.env_file).toEqual([{ path: '.env', required: false }]);
    expect(runtime.healthcheck.test.join(' ')).toMatch(/\/healthz/);
  });

  test('.env.example: every spec 5.5 variable, no values, the secret required only for api_key and bearer', () => {
    const env = files['.env.example'] ?? '';
    const assignments = env.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    expect(assignments.every((l) => /^[A-Z][A-Z0-9_]*=$/.test(l))).toBe(true);
    for (const name of [
      'SVC_FOLDER_PATH',
      'SVC_RUNTIME_MODE',
      'SVC_UPSTREAM_SECRET',
      'MCP_RUNTIME_PORT',
      'MCP_RUNTIME_PUBLIC_URL',
      'MCP_ALLOWED_ORIGINS',
      'SVC_SYNC_URL',
      'SVC_DEPLOY_TOKEN',
      'SVC_SYNC_INTERVAL',
    ]) {
      expect(assignments).toContain(`${name}=`);
    }
    expect(env).toMatch(/# REQUIRED \(auth api_key\).*\nSVC_UPSTREAM_SECRET=/);
    const bearer = renderFolder({
      ...sampleFolderModel(),
      config: sampleConfig({ auth: { mode: 'bearer', hasAuthSecret: true } }),
    });
    expect(bearer['.env.example']).toMatch(/# REQUIRED \(auth bearer\).*\nSVC_UPSTREAM_SECRET=/);
    const none = renderFolder({
      ...sampleFolderModel(),
      config: sampleConfig({ auth: { mode: 'none', hasAuthSecret: false }, requiredEnv: ['EXTRA_VAR'] }),
    });
    expect(none['.env.example']).not.toMatch(/REQUIRED \(auth/);
    expect(none['.env.example']).toMatch(/\nEXTRA_VAR=\n/);
  });

  test('README says how to run, where MCP answers, how to enable a tool, where the secret goes', () => {
    const readme = files['README.md'] ?? '';
    for (const s of [
      'docker compose up',
      'npx -p svc-mcp svc serve .',
      'http://localhost:3002/mcp`',
      'http://localhost:3002/mcp/orders',
      'enabled: true',
      'SVC_UPSTREAM_SECRET',
      '`X-API-Key`',
    ]) {
      expect(readme).toContain(s);
    }
    // `npx svc` alone resolves to an unrelated npm package named "svc".
    expect(readme).not.toMatch(/npx svc /);
  });

  test('README says which parts of the folder belong in git', () => {
    const readme = files['README.md'] ?? '';
    const section = readme.slice(readme.indexOf('## What belongs in git'));
    expect(section).toMatch(/^## What belongs in git\n/);
    for (const s of ['`.env`', '`.svc/history/`', '`.svc/generated.json`', '`.svc/specs/`', '`.gitignore`']) {
      expect(section).toContain(s);
    }
  });

  test('the same model renders to the same bytes whatever its key insertion order', () => {
    const model = sampleFolderModel();
    const reversed = structuredClone(model);
    const t = reversed.tools[0]!.tool as unknown as Record<string, unknown>;
    const shuffled = Object.fromEntries(Object.entries(t).reverse());
    reversed.tools[0]!.tool = shuffled as unknown as (typeof model.tools)[0]['tool'];
    reversed.config = Object.fromEntries(Object.entries(reversed.config).reverse()) as typeof model.config;
    expect(renderFolder(reversed)).toEqual(renderFolder(model));
  });

  test('refuses a model whose names would escape the folder', () => {
    const bad = sampleFolderModel();
    bad.docs[0]!.name = '../../etc/evil';
    expect(() => renderFolder(bad)).toThrow(expect.objectContaining({ code: 'CONTENT_PATH_UNSAFE' }));
    const badTool = sampleFolderModel();
    badTool.tools[0]!.key = '../x';
    expect(() => renderFolder(badTool)).toThrow(expect.objectContaining({ code: 'FOLDER_INVALID' }));
  });
});

describe('renderTool / renderConfig', () => {
  test('tool keys in the fixed order', () => {
    const text = renderTool(sampleTool('t', { title: 'T', stale: true, widget: 'w' }));
    const keys = Object.keys(parse(text));
    expect(keys).toEqual(TOOL_KEY_ORDER.filter((k) => keys.includes(k)));
    expect(keys.slice(0, 4)).toEqual(['name', 'title', 'description', 'enabled']);
  });

  test('multi-line strings are block literals; trailing spaces are quoted and survive', () => {
    const multi = renderTool(sampleTool('t', { description: 'Line one.\nLine two.\n' }));
    expect(multi).toContain('description: |\n  Line one.\n  Line two.\n');
    const trailing = renderTool(sampleTool('t', { description: 'ends in spaces  \nnext' }));
    expect(trailing).not.toMatch(/[ \t]$/m);
    expect(parse(trailing).description).toBe('ends in spaces  \nnext');
  });

  test('strings YAML would misread are quoted', () => {
    const text = renderTool(sampleTool('t', { description: 'yes' }));
    const tricky = ['123', 'true', 'null', '#x', 'a: b', '- x', '', '0x1F', '1e3', '~'];
    for (const d of tricky)
      expect(parse(renderTool(sampleTool('t', { description: d }))).description).toBe(d);
    expect(parse(text).description).toBe('yes');
  });

  test('config holds placement and hasAuthSecret, keys in schema order', () => {
    const text = renderConfig(sampleConfig());
    expect(Object.keys(parse(text))).toEqual([
      'schemaVersion',
      'server',
      'app',
      'source',
      'auth',
      'apiBaseUrl',
      'requiredEnv',
    ]);
    expect(text).toContain(
      'auth:\n  mode: api_key\n  apiKey:\n    in: header\n    name: X-API-Key\n  hasAuthSecret: true\n',
    );
  });
});

describe('renderFolderChecked and exportFolder', () => {
  test('renderFolderChecked refuses what would not load', () => {
    const model = sampleFolderModel();
    model.tools[0]!.tool = { ...model.tools[0]!.tool, name: 'bad name!' };
    const r = renderFolderChecked(model);
    expect(r.ok).toBe(false);
    if (!r.ok)
      expect(r.errors[0]).toMatchObject({
        code: 'FOLDER_INVALID',
        place: { file: 'Tools/getOrder.yaml', field: '/name' },
      });
    expect(renderFolderChecked(sampleFolderModel()).ok).toBe(true);
  });

  test('exportFolder: server is the parsed config, files leave .svc out; an invalid folder is refused', () => {
    const files = {
      ...renderFolder(sampleFolderModel()),
      '.svc/hashes.json': '{}',
      '.env': 'SVC_UPSTREAM_SECRET=s3cr3t-value',
      'notes.txt': 'mine',
    };
    const out = exportFolder(files);
    expect(JSON.stringify(out)).not.toContain('s3cr3t-value');
    expect(Object.keys(out.files)).not.toContain('notes.txt');
    expect(out.server).toEqual(sampleConfig());
    expect(Object.keys(out.files)).not.toContain('.svc/hashes.json');
    expect(Object.keys(out.files)).toContain('Tools/getOrder.yaml');
    expect(loadFolder(out.files as Record<string, string>).ok).toBe(true);
    expect(() => exportFolder({ 'README.md': 'x' })).toThrow(
      expect.objectContaining({ code: 'FOLDER_INVALID' }),
    );
  });
});
