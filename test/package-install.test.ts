/**
 * svc as someone installs it into another repository: `npm pack`, then the tarball installed into
 * an empty directory outside this repository (dependencies from the registry), and every command
 * family run from its node_modules/.bin/svc (a table below must name each command of the registry,
 * so a new command cannot ship untried). An MCP SDK client is the peer of `serve`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NPX_SVC, PACKAGE_NAME } from '../core/package-name.js';
import { commands } from '../cli/commands/index.js';
import { startWorkerd } from '../runtime/testing/workerd.js';
import { ensureBuilt, REPO_ROOT, runSvc, startSvc } from './helpers/built-cli.js';

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  name: string;
  version: string;
};

let work: string;
let consumer: string;
let bin: string;
let packed: string[];

function npm(args: string[], cwd: string): string {
  return execFileSync('npm', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 400_000,
  });
}

beforeAll(async () => {
  await ensureBuilt();
  work = mkdtempSync(path.join(tmpdir(), 'svc-pack-'));
  // The build is fresh (ensureBuilt); pack exactly that instead of rebuilding it in `prepare`.
  const [info] = JSON.parse(
    npm(['pack', '--json', '--ignore-scripts', '--pack-destination', work], REPO_ROOT),
  ) as {
    filename: string;
    files: { path: string }[];
  }[];
  if (!info) throw new Error('npm pack printed nothing');
  packed = info.files.map((f) => f.path);
  consumer = path.join(work, 'consumer');
  execFileSync('mkdir', [consumer]);
  writeFileSync(path.join(consumer, 'package.json'), '{ "name": "consumer", "private": true }\n');
  npm(['install', '--no-audit', '--no-fund', '--prefer-offline', path.join(work, info.filename)], consumer);
  bin = path.join(consumer, 'node_modules/.bin/svc');
  copyFileSync(
    path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml'),
    path.join(consumer, 'petstore.yaml'),
  );
}, 600_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

describe(`the ${PACKAGE_NAME} package`, () => {
  it('is published under a name other than the unrelated "svc", with its command still svc', () => {
    expect(manifest.name).toBe(PACKAGE_NAME);
    expect(manifest.name).not.toBe('svc');
    expect(NPX_SVC).toBe(`npx -p ${PACKAGE_NAME} svc`);
  });

  it('packs the build with its types and schemas, and neither tests nor benches', () => {
    for (const file of [
      'package.json',
      'README.md',
      'dist/cli/main.js',
      'dist/cli/main.d.ts',
      'dist/runtime/index.d.ts',
      'dist/schemas/tool.schema.json',
      'dist/schemas/config.schema.json',
      'fixtures/demo/openapi.yaml',
    ]) {
      expect(packed).toContain(file);
    }
    expect(
      packed.filter((f) => /\.test\.|^dist\/bench\/|^dist\/action\/|\/testing\/|^test\//.test(f)),
    ).toEqual([]);
  });

  it('ships every file its README and docs link to (relative links resolve inside the package)', () => {
    const shipped = new Set(packed);
    const broken: string[] = [];
    for (const doc of packed.filter((f) => f.endsWith('.md') && !f.startsWith('fixtures/'))) {
      const text = readFileSync(path.join(consumer, 'node_modules', PACKAGE_NAME, doc), 'utf8');
      for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z][a-z+.-]*:/i.test(target) || target.startsWith('#')) continue;
        const file = path.posix.normalize(
          path.posix.join(path.posix.dirname(doc), target.split('#')[0] ?? ''),
        );
        const dir = file.replace(/\/?$/, '/');
        if (!shipped.has(file) && !packed.some((f) => f.startsWith(dir))) broken.push(`${doc} → ${target}`);
      }
    }
    expect(broken).toEqual([]);
    expect(packed).toContain('docs/control/api.md');
  });

  it('in a checkout without node_modules, `npm pack` says to run `npm ci` first', () => {
    const fresh = mkdtempSync(path.join(work, 'fresh-'));
    copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(fresh, 'package.json'));
    cpSync(path.join(REPO_ROOT, 'scripts'), path.join(fresh, 'scripts'), { recursive: true });
    const run = spawnSync('npm', ['pack', '--dry-run'], { cwd: fresh, encoding: 'utf8' });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('Run `npm ci` first');
  });

  it('prints its version and help from the installed bin', async () => {
    const version = await runSvc(['--version'], { cwd: consumer, bin });
    expect(version).toMatchObject({ code: 0, stdout: `svc ${manifest.version}\n` });
    expect((await runSvc(['help'], { cwd: consumer, bin })).stdout).toMatch(/^ {2}init {2,}/m);
  });

  it('inits Petstore, validates it and serves it to an MCP client', async () => {
    const init = await runSvc(['init', 'mcp/petstore', '--name', 'Petstore', '--openapi', 'petstore.yaml'], {
      cwd: consumer,
      bin,
    });
    expect(init.stderr).toMatch(/^(warning: [^\n]*\n)*$/); // Petstore declares an api key: init warns, never fails
    expect(init.code).toBe(0);
    const readme = readFileSync(path.join(consumer, 'mcp/petstore/README.md'), 'utf8');
    expect(readme).toContain(`${NPX_SVC} serve .`);

    const toolFile = path.join(consumer, 'mcp/petstore/Tools/listPets.yaml');
    writeFileSync(toolFile, readFileSync(toolFile, 'utf8').replace(/^enabled: false$/m, 'enabled: true'));
    const validate = await runSvc(['validate', 'mcp/petstore'], { cwd: consumer, bin });
    expect(validate).toMatchObject({ code: 0, stderr: '' });
    expect(validate.stdout).toMatch(/8 tools \(1 enabled\)/);

    const served = await startSvc(['serve', 'mcp/petstore', '--port', '0'], { cwd: consumer, bin });
    try {
      const health = await fetch(new URL('/healthz', served.url));
      expect(health.status).toBe(200);
      const client = new Client({ name: 'package-install-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(served.url)));
      try {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toEqual(['listPets']);
      } finally {
        await client.close();
      }
    } finally {
      expect(await served.stop()).toBe(0);
    }
  });

  it('runs the demo from the files it ships', async () => {
    const demo = await runSvc(['demo', 'bookshelf', '--port', '0', '--self-check'], { cwd: consumer, bin });
    expect(demo.stderr).not.toMatch(/"level":"error"|internal error/);
    expect(demo.stdout).toMatch(/self-check: 4 tools .*listBooks →/);
    expect(demo.code).toBe(0);
  });

  it('exposes its modules with types to code that imports it', () => {
    const script = `import { runCli } from '${PACKAGE_NAME}'; import { parseRuntimeEnv } from '${PACKAGE_NAME}/runtime';
      import { validate } from '${PACKAGE_NAME}/schemas'; import { loadFolder } from '${PACKAGE_NAME}/folder';
      console.log([runCli, parseRuntimeEnv, validate, loadFolder].map((f) => typeof f).join(','));`;
    const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: consumer,
      encoding: 'utf8',
    });
    expect(out.trim()).toBe('function,function,function,function');
  });

  describe('runs every command family from the tarball', () => {
    const ran = new Set<string>();
    const svc = async (args: string[], env?: Record<string, string>) => {
      const found = commands.find((c) => args.join(' ').startsWith(c.name));
      if (found) ran.add(found.name);
      const run = await runSvc(args, { cwd: consumer, bin, ...(env ? { env } : {}) });
      // A module the package leaves out fails every command the same way: say which file.
      expect(run.stderr).not.toMatch(/ERR_MODULE_NOT_FOUND|Cannot find (module|package)|internal error/);
      return run;
    };

    it('loads the module of every command (its help)', async () => {
      for (const { name } of commands) {
        const help = await svc(['help', ...name.split(' ')]);
        expect(help.code, name).toBe(0);
        expect(help.stdout, name).toMatch(/Usage/);
      }
      ran.clear(); // help alone runs nothing: each command is still run for real below
    });

    it('init, import, diff, history, tool add, source set, validate', async () => {
      const init = await svc(['init', 'mcp/pets', '--name', 'Pets', '--openapi', 'petstore.yaml']);
      expect(init.code).toBe(0);
      const imported = await svc(['import', 'mcp/pets']);
      expect(imported).toMatchObject({ code: 0 });
      expect(imported.stdout).toMatch(/tools?/);
      const diff = await svc(['diff', 'mcp/pets']);
      expect(diff.code).toBe(0);
      const history = await svc(['history', 'mcp/pets']);
      expect(history.code).toBe(0);
      expect(history.stdout.trim().split('\n').length).toBeGreaterThanOrEqual(2);
      const added = await svc([
        'tool',
        'add',
        'mcp/pets',
        '--method',
        'GET',
        '--path',
        '/status',
        '--name',
        'getStatus',
      ]);
      expect(added.code).toBe(0);
      expect(existsSync(path.join(consumer, 'mcp/pets/Tools/getStatus.yaml'))).toBe(true);
      const enabled = await svc(['tool', 'enable', 'mcp/pets', 'getStatus']);
      expect(enabled.code).toBe(0);
      const listed = await svc(['tool', 'list', 'mcp/pets', '--grep', 'status']);
      expect(listed.code).toBe(0);
      expect(listed.stdout).toMatch(/getStatus/);
      expect((await svc(['tool', 'disable', 'mcp/pets', 'getStatus'])).code).toBe(0);
      const source = await svc(['source', 'set', 'mcp/pets', '--openapi', 'petstore.yaml']);
      expect(source.code).toBe(0);
      const validate = await svc(['validate', 'mcp/pets']);
      expect(validate.code).toBe(0);
    });

    it('publish, export, unpublish', async () => {
      expect((await svc(['publish', 'mcp/pets'])).code).toBe(0);
      const exported = await svc(['export', 'mcp/pets', '--out', 'exported-pets']);
      expect(exported.code).toBe(0);
      expect(existsSync(path.join(consumer, 'exported-pets/config.yaml'))).toBe(true);
      expect(existsSync(path.join(consumer, 'exported-pets/.svc'))).toBe(false);
      expect((await svc(['unpublish', 'mcp/pets'])).code).toBe(0);
    });

    it('worker build: a Worker bundle of the folder that workerd serves', async () => {
      expect((await svc(['tool', 'enable', 'mcp/pets', 'getStatus'])).code).toBe(0);
      const built = await svc(['worker', 'build', 'mcp/pets', '--out', 'pets-worker']);
      expect(built.stderr).toBe('');
      expect(built.code).toBe(0);
      const worker = await startWorkerd(path.join(consumer, 'pets-worker'), {
        SVC_UPSTREAM_SECRET: 'sk-package-1234567',
      });
      try {
        const listed = await fetch(`${worker.origin}/mcp`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2026-07-28',
            'mcp-method': 'tools/list',
          },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/list',
            params: {
              _meta: {
                'io.modelcontextprotocol/protocolVersion': '2026-07-28',
                'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
                'io.modelcontextprotocol/clientCapabilities': {},
              },
            },
          }),
        });
        expect(listed.status).toBe(200);
        expect(JSON.stringify(await listed.json())).toContain('"name":"getStatus"');
      } finally {
        await worker.close();
      }
    });

    it('verify refuses a folder that is not an app-builder app, in its own words', async () => {
      const verify = await svc(['verify', 'mcp/pets']);
      expect(verify.code).not.toBe(0);
      expect(verify.code).not.toBe(5);
      expect(verify.stderr).toMatch(/^error: /);
    });

    it('git: lists the (empty) connections of a fresh config directory', async () => {
      const config = mkdtempSync(path.join(work, 'config-'));
      const listed = await svc(['git', 'connections', '--json'], { SVC_CONFIG_DIR: config });
      expect(listed.code).toBe(0);
      expect(JSON.parse(listed.stdout)).toEqual([]);
    });

    it('control token and control serve: a workspace token that the running service accepts', async () => {
      const data = path.join(work, 'control-data');
      const token = await svc(['control', 'token', 'workspace', '--name', 'admin', '--data', data]);
      expect(token.code).toBe(0);
      const secret = /\S{20,}/.exec(token.stdout)?.[0];
      expect(secret).toBeDefined();
      ran.add('control');
      const served = await startSvc(['control', 'serve', '--port', '0', '--data', data], {
        cwd: consumer,
        bin,
      });
      try {
        expect((await fetch(new URL('/healthz', served.url))).status).toBe(200);
        const servers = await fetch(new URL('/v1/servers', served.url), {
          headers: { authorization: `Bearer ${secret}` },
        });
        expect(servers.status).toBe(200);
        expect(served.output()).not.toMatch(/ERR_MODULE_NOT_FOUND|"level":"error"/);
      } finally {
        expect(await served.stop()).toBe(0);
      }
    });

    it('names every command of the registry in the runs above (serve and demo run above too)', () => {
      for (const name of ['serve', 'demo']) ran.add(name);
      expect(commands.map((c) => c.name).filter((name) => !ran.has(name))).toEqual([]);
    });
  });
});
