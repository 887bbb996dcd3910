/**
 * The validators a Workers bundle carries answer exactly as the Node runtime does: for the input
 * and output schemas of hundreds of GitHub's tools and values of every kind for each property, the
 * code Ajv generated at build time (bundled by esbuild as `svc worker build` bundles it, then
 * imported) gives the same verdict and the same error objects as the runtime's compileToolSchema.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { build } from 'esbuild';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { readGithub22 } from '../../test/helpers/github-documents.js';
import { compileToolSchema } from '../../folder/check-tools.js';
import type { FolderModel } from '../../folder/model.js';
import { toEndpoints } from '../../generator/endpoints/index.js';
import { parseDocument } from '../../generator/parse/index.js';
import { readOpenApiSource } from '../../generator/sources/openapi-source.js';
import { buildTools } from '../../generator/tools/index.js';
import { packageRoot } from '../../core/package-root.js';
import { workerPlugin } from './build-worker.js';
import { generateToolValidators, type ToolValidators } from './tool-validators.js';

let work: string;
let folder: FolderModel;
let validators: ToolValidators;
let bundled: ValidateFunction[];

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'svc-validators-'));
  const document = join(work, 'github.json');
  await writeFile(document, await readGithub22());
  const tools = buildTools(
    toEndpoints(await parseDocument(await readOpenApiSource(document, { cwd: work }))),
  );
  folder = {
    config: {
      schemaVersion: 1,
      server: { id: 'github', name: 'GitHub', published: false },
      app: { name: 'GitHub', provider: 'openapi' },
      source: { kind: 'openapi', location: document },
      auth: { mode: 'none', hasAuthSecret: false },
      apiBaseUrl: 'https://api.example.test',
      requiredEnv: [],
    },
    // Every third tool: a few hundred schemas, formats, patterns, enums, nested objects.
    tools: tools
      .filter((_, i) => i % 3 === 0)
      .map((t, i) => ({
        key: t.tool.name,
        file: `Tools/${t.tool.name}.yaml`,
        tool: { ...t.tool, enabled: true, sortOrder: i },
      })),
    skills: [],
    prompts: [],
    resources: [],
    docs: [],
    widgets: [],
  } as unknown as FolderModel;
  validators = generateToolValidators(folder, join(packageRoot(), 'folder/linear-pattern.ts'));
  const entry = [
    ...validators.modules.map((_, i) => `import v${i} from 'svc-validator:${i}';`),
    `export default [${validators.modules.map((_, i) => `v${i}`).join(', ')}];`,
  ].join('\n');
  const result = await build({
    stdin: { contents: entry, resolveDir: packageRoot(), loader: 'js' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    write: false,
    logLevel: 'silent',
    plugins: [workerPlugin(validators, packageRoot())],
  });
  const file = join(work, 'validators.mjs');
  await writeFile(file, result.outputFiles[0]!.contents);
  bundled = (await import(pathToFileURL(file).href)).default as ValidateFunction[];
}, 120_000);
afterAll(async () => {
  if (work) await rm(work, { recursive: true, force: true });
});

/** Values of every JSON kind, and strings that formats and patterns look at. */
const SAMPLES: unknown[] = [
  'x',
  '',
  'a'.repeat(300),
  '2026-11-26T10:00:00Z',
  'not a date',
  'someone@example.com',
  'https://example.com/a',
  'main',
  0,
  7,
  -1.5,
  true,
  null,
  [],
  ['a', 1],
  {},
  { name: 'n', id: 1 },
];

function valuesFor(schema: { properties?: Record<string, unknown>; required?: string[] }): unknown[] {
  const names = Object.keys(schema.properties ?? {});
  const filled = Object.fromEntries((schema.required ?? []).map((name) => [name, 'x']));
  const values: unknown[] = [{}, filled, 'not an object', [filled], { ...filled, unknownProperty: 1 }];
  for (const name of names) for (const sample of SAMPLES) values.push({ ...filled, [name]: sample });
  return values;
}

it('covers a few hundred schemas, formats and patterns among them', () => {
  expect(folder.tools.length).toBeGreaterThan(300);
  expect(validators.modules.length).toBeGreaterThan(300);
  const code = validators.modules.join('\n');
  expect(code).toContain('linearRegExp');
  expect(code).toContain('ajv-formats/dist/formats');
});

it('gives the verdict and the errors the Node runtime gives, for every schema and value', () => {
  let compared = 0;
  const differences: string[] = [];
  for (const item of folder.tools) {
    const row = validators.table[item.file]!;
    const pairs: [object, number | { error: string } | undefined][] = [[item.tool.inputSchema, row.input]];
    if (item.tool.outputSchema) pairs.push([item.tool.outputSchema, row.output]);
    for (const [schema, entry] of pairs) {
      const node = compileToolSchema(schema);
      if ('error' in node) {
        expect(entry).toEqual({ error: expect.stringContaining(node.error) });
        continue;
      }
      expect(typeof entry).toBe('number');
      const worker = bundled[entry as number]!;
      for (const value of valuesFor(schema as { properties?: Record<string, unknown> })) {
        const verdict = [node(value), worker(value)];
        const errors = [node.errors ?? null, worker.errors ?? null];
        compared++;
        if (verdict[0] !== verdict[1] || JSON.stringify(errors[0]) !== JSON.stringify(errors[1]))
          differences.push(`${item.file}: ${JSON.stringify(value).slice(0, 80)}`);
      }
    }
  }
  expect(differences).toEqual([]);
  expect(compared).toBeGreaterThan(10_000);
});
