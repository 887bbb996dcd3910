/**
 * Golden folders: `svc init` on fixed inputs must write exactly fixtures/golden/<case>/,
 * byte for byte. After an intended change: `npx vitest run test/golden.test.ts -u`, then
 * review the diff of fixtures/golden/ like any other change.
 *
 * The folders are generated inside the repository (.golden-tmp/) so the relative source
 * paths recorded in config.yaml are the same on every machine.
 */
import { readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { svc } from './helpers/run-cli.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const scratch = path.join(root, '.golden-tmp');

interface GoldenCase {
  name: string;
  steps: string[][];
}

const cases: GoldenCase[] = [
  {
    name: 'openapi-3.0',
    steps: [['init', 'folder', '--name', 'Petstore', '--openapi', '../../fixtures/specs/petstore-3.0.yaml']],
  },
  {
    name: 'openapi-3.1',
    steps: [
      [
        'init',
        'folder',
        '--name',
        'Catalog',
        '--openapi',
        '../../fixtures/specs/catalog-3.1.json',
        '--auth',
        'bearer',
      ],
    ],
  },
  {
    name: 'swagger-2.0',
    steps: [
      [
        'init',
        'folder',
        '--name',
        'Legacy',
        '--openapi',
        '../../fixtures/specs/legacy-swagger-2.0.yaml',
        '--auth',
        'api_key',
        '--api-key-in',
        'query',
        '--api-key-name',
        'api_key',
      ],
    ],
  },
  {
    name: 'manual',
    steps: [
      [
        'init',
        'folder',
        '--name',
        'CRM',
        '--manual',
        '--base-url',
        'https://crm.example.test/api',
        '--auth',
        'bearer',
      ],
      [
        'tool',
        'add',
        'folder',
        '--method',
        'GET',
        '--path',
        '/contacts/{id}',
        '--param',
        'id:path:string:required',
      ],
      [
        'tool',
        'add',
        'folder',
        '--method',
        'GET',
        '--path',
        '/contacts',
        '--param',
        'q:query:string:optional:Search text',
        '--param',
        'limit:query:integer',
        '--description',
        'Search contacts by name or email.',
      ],
      [
        'tool',
        'add',
        'folder',
        '--method',
        'POST',
        '--path',
        '/contacts',
        '--param',
        'name:body:string:required',
        '--param',
        'email:body:string',
      ],
    ],
  },
  {
    name: 'content',
    steps: [
      [
        'init',
        'folder',
        '--name',
        'Bookshelf',
        '--openapi',
        '../../fixtures/demo/openapi.yaml',
        '--content',
        '../../fixtures/content',
      ],
    ],
  },
];

function listFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .map((p) => p.split(path.sep).join('/'))
    .filter((p) => statSync(path.join(dir, p)).isFile())
    .sort();
}

afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('golden folders', () => {
  it.each(cases)('$name', async ({ name, steps }) => {
    const cwd = path.join(scratch, name);
    rmSync(cwd, { recursive: true, force: true });
    for (const step of steps) {
      const run = await svc(step, { cwd });
      // The fixtures declare security schemes but the goldens keep auth: none; init says so.
      const stderr = run.stderr.replace(/^warning: the document declares security schemes .*\n/m, '');
      expect(stderr, `svc ${step.join(' ')}`).toBe('');
      expect(run.code).toBe(0);
    }
    const folder = path.join(cwd, 'folder');
    // The bookkeeping holds timestamps and copies of the source; it is checked elsewhere.
    const files = listFiles(folder).filter((p) => !p.startsWith('.svc/'));
    const golden = path.join(root, 'fixtures/golden', name);
    await expect(`${files.join('\n')}\n`).toMatchFileSnapshot(path.join(golden, '.files'));
    for (const file of files) {
      await expect(readFileSync(path.join(folder, file), 'utf8')).toMatchFileSnapshot(
        path.join(golden, file),
      );
    }
  });

  it('the same input gives byte-identical folders', async () => {
    const make = async (tag: string) => {
      const cwd = path.join(scratch, `twice-${tag}`);
      rmSync(cwd, { recursive: true, force: true });
      const run = await svc(
        [
          'init',
          'folder',
          '--name',
          'Petstore',
          '--openapi',
          '../../fixtures/specs/petstore-3.0.yaml',
          '--content',
          '../../fixtures/content',
        ],
        { cwd },
      );
      expect(run.code).toBe(0);
      const dir = path.join(cwd, 'folder');
      return Object.fromEntries(
        listFiles(dir)
          .filter((p) => !p.startsWith('.svc/history'))
          .map((p) => [p, readFileSync(path.join(dir, p), 'utf8')]),
      );
    };
    const [a, b] = [await make('a'), await make('b')];
    expect(Object.keys(a).length).toBeGreaterThan(5);
    expect(b).toEqual(a);
  });
});
