/**
 * svc as someone installs it into another repository: `npm pack`, then the tarball installed into
 * an empty directory outside this repository (dependencies from the registry), and `init`,
 * `validate`, `serve` and `demo` run from its node_modules/.bin/svc. An MCP SDK client is the peer.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NPX_SVC, PACKAGE_NAME } from '../core/package-name.js';
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
});
