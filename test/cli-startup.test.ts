/**
 * `svc help` and `svc --version` load no command's code (the generator, the runtime, their
 * libraries) and `svc init` loads no runtime: each command's modules are imported only when it
 * runs. The start times themselves are measured by `npm run bench -- cli`, never asserted here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, REPO_ROOT } from './helpers/built-cli.js';
import { modulesLoadedBy as modulesLoaded } from './helpers/modules-loaded.js';

beforeAll(ensureBuilt, 120_000);

const scratch = mkdtempSync(path.join(tmpdir(), 'svc-startup-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const modulesLoadedBy = (args: string[]) => modulesLoaded(scratch, args);

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

  it('init loads the generator but not the runtime', () => {
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
      ]),
    ).toEqual([]);
  }, 60_000);
});
