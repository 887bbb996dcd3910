/**
 * `svc help` and `svc --version` load no command's code (the generator, the runtime, their
 * libraries) and `svc init` loads no runtime: each command's modules are imported only when it
 * runs. The start times themselves are measured by `npm run bench -- cli`, never asserted here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RACY_MS, statFolder } from '../folder/file-stats.js';
import { ensureBuilt, REPO_ROOT } from './helpers/built-cli.js';
import { modulesLoadedBy as modulesLoaded } from './helpers/modules-loaded.js';

beforeAll(ensureBuilt, 120_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const modulesLoadedBy = (args: string[], env: Record<string, string> = {}) =>
  modulesLoaded(scratch, args, env);

const heavy = (urls: string[], patterns: RegExp[]) => urls.filter((u) => patterns.some((p) => p.test(u)));

const COMMAND_CODE = [
  /\/dist\/(generator|runtime|folder)\//,
  /node_modules\/(@modelcontextprotocol|ajv|yaml|hono|@hono|@apidevtools|gray-matter|unified|remark-parse)\//,
];

describe('svc startup', () => {
  it('help and --version load no command code', () => {
    for (const args of [['help'], ['--version']]) {
      const loaded = modulesLoadedBy(args);
      expect(loaded.some((u) => u.endsWith('/dist/cli/main.js'))).toBe(true);
      expect(heavy(loaded, COMMAND_CODE), args.join(' ')).toEqual([]);
    }
  }, 60_000);

  it('init loads the generator but neither the runtime nor the tool schema compiler', () => {
    const petstore = path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml');
    const loaded = modulesLoadedBy([
      'init',
      path.join(scratch, 'pet'),
      '--name',
      'Petstore',
      '--openapi',
      petstore,
    ]);
    expect(loaded.some((u) => u.includes('/dist/generator/'))).toBe(true);
    expect(
      // svc's own dist/runtime/, not a package's (the precompiled validators use ajv/dist/runtime/ helpers).
      heavy(loaded, [
        /^(?!.*\/node_modules\/).*\/dist\/runtime\//,
        /node_modules\/(@modelcontextprotocol|hono|@hono)\//,
        // Ajv's 2020 compiler is svc validate's and the runtime's: the importer checks required
        // names (folder/required-names) and validates documents with precompiled code.
        /\/dist\/folder\/check-tools\.js$/,
        /node_modules\/ajv\/dist\/2020\.js$/,
      ]),
    ).toEqual([]);
  }, 60_000);

  it('an unchanged import or diff (hashed, or proven by the stat index) loads neither the planner, the folder loader nor yaml', async () => {
    const petstore = path.join(REPO_ROOT, 'fixtures/specs/petstore-3.0.yaml');
    const dir = path.join(scratch, 'unchanged');
    const env = { SVC_CACHE_DIR: path.join(scratch, 'cache') };
    modulesLoadedBy(['init', dir, '--name', 'Petstore', '--openapi', petstore], env);
    // The stat index records only files changed more than RACY_MS before the import starts.
    const newest = () =>
      Math.max(...[...statFolder(dir)!.files.values()].map((s) => Number(s.ctimeNs / 1_000_000n)));
    while (newest() > Date.now() - 2 * RACY_MS) await new Promise((r) => setTimeout(r, 10));
    // The first hashes the bytes and keeps their stats; the next ones are proven by them.
    for (const args of [
      ['import', dir],
      ['import', dir],
      ['diff', dir],
    ]) {
      const loaded = modulesLoadedBy(args, env);
      expect(loaded.some((u) => u.endsWith('/replay-quick.js'))).toBe(true);
      expect(
        heavy(loaded, [
          /\/dist\/generator\/import\/(import-folder|plan-import|open-previous)\.js/,
          /\/dist\/folder\/load-folder\.js/,
          /\/dist\/generator\/(parse|tools|render\/render|diff\/diff)/,
          /node_modules\/(yaml|re2js|@apidevtools)\//,
        ]),
        args.join(' '),
      ).toEqual([]);
    }
  }, 60_000);
});
