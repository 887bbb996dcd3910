/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against the runtime
 * serving fixtures/conformance/folder, backed by its fixture upstream, both on localhost.
 * conformance-baseline.yml lists every expected failure with its reason; the suite fails on
 * an unexpected failure AND on a baselined scenario that now passes (stale baseline).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFolder } from '../generator/import/index.js';
import { initialConfig } from '../generator/init/index.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  CONFORMANCE_FOLDER,
  copyFixtureFolder,
  type EchoUpstream,
  startConformanceUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';

let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let outDir: string;

beforeAll(async () => {
  upstream = await startConformanceUpstream();
  folder = await copyFixtureFolder(CONFORMANCE_FOLDER, upstream.url);
  runtime = await startRuntime({
    env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
    folderDir: folder.dir,
    logger: { log() {} },
  });
  outDir = await mkdtemp(join(tmpdir(), 'svc-conformance-'));
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
  if (outDir) await rm(outDir, { recursive: true, force: true });
});

function runSuite(args: string[]): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        './fixtures/conformance/node20-register.mjs',
        'node_modules/@modelcontextprotocol/conformance/dist/index.js',
        ...args,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, output }));
  });
}

async function scenarioResults(dir: string): Promise<Map<string, string[]>> {
  const results = new Map<string, string[]>();
  const walk = async (d: string): Promise<void> => {
    for (const entry of await readdir(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (entry.name === 'checks.json') {
        const checks = JSON.parse(await readFile(path, 'utf8')) as { status: string }[];
        results.set(
          d.slice(dir.length + 1),
          checks.map((c) => c.status),
        );
      }
    }
  };
  await walk(dir);
  return results;
}

describe('MCP conformance suite', () => {
  it('passes every scenario except the baselined ones', { timeout: 90_000 }, async () => {
    const url = `http://localhost:${runtime.port}/mcp`;
    const { code, output } = await runSuite([
      'server',
      '--url',
      url,
      '--suite',
      'all',
      '--expected-failures',
      'conformance-baseline.yml',
      '-o',
      outDir,
    ]);
    const results = await scenarioResults(outDir);
    const summary = output.slice(output.indexOf('=== SUMMARY ==='));
    const lines = summary.split('\n').filter((l) => /^[✓✗] /.test(l));
    const passed = lines.filter((l) => l.startsWith('✓')).map((l) => l.slice(2, l.indexOf(':')));
    const failed = lines.filter((l) => l.startsWith('✗')).map((l) => l.slice(2, l.indexOf(':')));
    console.log(
      `conformance: ${passed.length} scenarios pass, ${failed.length} baselined: ${failed.join(', ')}`,
    );
    expect(results.size).toBeGreaterThan(20);
    expect(passed).toEqual(
      expect.arrayContaining(['server-initialize', 'tools-list', 'dns-rebinding-protection']),
    );
    expect(code, output.slice(-4000)).toBe(0);
    // The suite's tools/call and tools/list went over the hot path (runtime/fast-path.ts).
    expect(runtime.hotPathServed()).toBeGreaterThan(5);
  });

  it('passes the same scenarios on the folder the generator makes from openapi.json + content/', {
    timeout: 90_000,
  }, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-conformance-gen-'));
    try {
      const config = initialConfig({
        name: 'Conformance',
        serverId: 'conformance',
        openapi: resolve('fixtures/conformance/openapi.json'),
        contentDir: resolve('fixtures/conformance/content'),
        baseUrl: upstream.url,
      });
      const imported = await importFolder({ dir, config, now: () => new Date('2026-01-01T00:00:00Z') });
      expect(imported.status, imported.error?.describe()).toBe('complete');
      // Everything arrives disabled (default-deny); the fixture enables it all, as a reviewer would.
      for (const [path, text] of Object.entries(imported.files)) {
        if (/^(Tools|Prompts|Resources)\/.+\.(yaml|md)$/.test(path)) {
          await writeFile(join(dir, path), text.replace(/^enabled: false$/m, 'enabled: true'));
        }
      }
      const generated = await startRuntime({
        env: parseRuntimeEnv({ MCP_RUNTIME_PORT: '0' }),
        folderDir: dir,
        logger: { log() {} },
      });
      try {
        // The generator does not carry a tool schema's own `$schema` keyword into the folder
        // (json-schema-2020-12 checks that it is preserved); everything else is as above.
        const baseline = join(dir, 'baseline.yml');
        const base = await readFile('conformance-baseline.yml', 'utf8');
        await writeFile(baseline, `${base.trimEnd()}\n  - json-schema-2020-12\n`);
        const { code, output } = await runSuite([
          'server',
          '--url',
          `http://localhost:${generated.port}/mcp`,
          '--suite',
          'all',
          '--expected-failures',
          baseline,
        ]);
        const summary = output.slice(output.indexOf('=== SUMMARY ==='));
        console.log(`generated folder: ${summary.split('\n').find((l) => l.startsWith('Total:'))}`);
        expect(code, output.slice(-3000)).toBe(0);
      } finally {
        await generated.close();
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
