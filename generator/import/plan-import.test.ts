/**
 * The planner without a disk: an in-memory previous folder and source bundle in, the folder as it
 * should be, its record, report and checklist out. Nothing here reads or writes a file.
 */
import { describe, expect, it } from 'vitest';
import type { FolderFiles } from '../../folder/model.js';
import type { SvcConfig } from '../../schemas/types.js';
import type { SourceBundle } from './import-types.js';
import { planImport } from './plan-import.js';
import { openPrevious } from './open-previous.js';

const config: SvcConfig = {
  schemaVersion: 1,
  server: { id: 'pets', name: 'Default', published: false },
  app: { name: 'Pets', provider: 'openapi' },
  source: { kind: 'openapi', location: 'api.json' },
  auth: { mode: 'none', hasAuthSecret: false },
  apiBaseUrl: '',
  requiredEnv: [],
};

function spec(paths: Record<string, unknown>): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'Pets', version: '1' },
    servers: [{ url: 'https://pets.example.test/v1' }],
    paths,
  });
}

const listPets = {
  '/pets': {
    get: { operationId: 'listPets', summary: 'List pets', responses: { '200': { description: 'ok' } } },
  },
};
const getPet = {
  '/pets/{id}': {
    get: {
      operationId: 'getPet',
      summary: 'Get a pet',
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      responses: { '200': { description: 'ok' } },
    },
  },
};

function bundle(text: string, extra: Partial<SourceBundle> = {}): SourceBundle {
  return { document: { text, origin: '/virtual/api.json', bytes: text.length }, ...extra };
}

let tick = 0;
const clock = () => new Date(Date.UTC(2026, 0, 1, 0, 0, tick++));
const options = { dir: '/virtual' };

async function firstImport(): Promise<FolderFiles> {
  const plan = await planImport(undefined, bundle(spec(listPets)), { ...options, config }, clock);
  if (plan.result.status !== 'complete') throw plan.result.error;
  return plan.result.files;
}

const tools = (files: FolderFiles) =>
  Object.keys(files).filter((p) => p.startsWith('Tools/') && p.endsWith('.yaml'));

describe('planImport', () => {
  it('plans a first import: the folder, its first record, a settled checklist', async () => {
    const plan = await planImport(undefined, bundle(spec(listPets)), { ...options, config }, clock);
    expect(plan.result.status).toBe('complete');
    expect(plan.append).toBeUndefined();
    const files = plan.result.files;
    expect(tools(files)).toEqual(['Tools/listPets.yaml']);
    expect(files['Tools/listPets.yaml']).toContain('enabled: false');
    expect(files['config.yaml']).toContain('apiBaseUrl: https://pets.example.test/v1');
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining(['.gitignore', '.svc/history/000001.json', 'Tools/openapi.json']),
    );
    expect(plan.result.record).toMatchObject({ seq: 1, status: 'complete', changed: true });
    expect(plan.result.record!.statusLog.map((s) => s.status)).toEqual(['pending', 'processing', 'complete']);
    expect(plan.result.checklist).toEqual([
      { kind: 'tools', label: 'Tools', status: 'complete', count: 1 },
      { kind: 'resources', label: 'Resources', status: 'complete', count: 0 },
    ]);
  });

  it('re-plans the same source: no file but the history changes', async () => {
    const before = await firstImport();
    const plan = await planImport(openPrevious(before), bundle(spec(listPets)), options, clock);
    expect(plan.result).toMatchObject({ status: 'complete', changed: false, record: { seq: 2 } });
    const changed = Object.keys(plan.result.files).filter((p) => plan.result.files[p] !== before[p]);
    expect(changed.every((p) => p.startsWith('.svc/'))).toBe(true);
    expect(changed).toContain('.svc/history/000002.json');
  });

  it('keeps an enabled flag across a new release and reports the added endpoint', async () => {
    const before = await firstImport();
    const edited = {
      ...before,
      'Tools/listPets.yaml': before['Tools/listPets.yaml']!.replace('enabled: false', 'enabled: true'),
    };
    const plan = await planImport(
      openPrevious(edited),
      bundle(spec({ ...listPets, ...getPet })),
      options,
      clock,
    );
    expect(plan.result.status).toBe('complete');
    expect(tools(plan.result.files).sort()).toEqual(['Tools/getPet.yaml', 'Tools/listPets.yaml']);
    expect(plan.result.files['Tools/listPets.yaml']).toBe(edited['Tools/listPets.yaml']);
    expect(plan.result.report.counts.endpoints).toMatchObject({ before: 1, after: 2, added: 1 });
  });

  it('a source that does not parse fails closed: only the failed record, to append', async () => {
    const before = await firstImport();
    const plan = await planImport(
      openPrevious(before),
      bundle('{"openapi": "3.0.3", "paths": ['),
      options,
      clock,
    );
    expect(plan.result).toMatchObject({ status: 'failed', error: { code: 'SOURCE_NOT_JSON_OR_YAML' } });
    expect(plan.append?.path).toBe('.svc/history/000002.json');
    expect(JSON.parse(plan.append!.text)).toMatchObject({
      seq: 2,
      status: 'failed',
      error: { step: 'tools' },
    });
    expect(plan.result.checklist[0]).toMatchObject({ kind: 'tools', status: 'failed' });
  });

  it('parses the content files of the bundle; a broken one fails its own row', async () => {
    const withContent = { ...options, config, contentDir: 'content' };
    const prompt = { path: 'Prompts/greet.md', text: '---\ndescription: Greets\n---\nHello\n' };
    const plan = await planImport(
      undefined,
      bundle(spec(listPets), { content: [prompt] }),
      withContent,
      clock,
    );
    expect(plan.result.status).toBe('complete');
    expect(plan.result.files['Prompts/greet.md']).toContain('Hello');
    expect(plan.result.checklist.find((r) => r.kind === 'prompts')).toMatchObject({
      status: 'complete',
      count: 1,
    });
    const broken = { path: 'Prompts/bad.md', text: '---\nnot: [closed\n---\nHi\n' };
    const failed = await planImport(
      undefined,
      bundle(spec(listPets), { content: [broken] }),
      withContent,
      clock,
    );
    expect(failed.result.status).toBe('failed');
    expect(failed.result.checklist.find((r) => r.kind === 'prompts')).toMatchObject({ status: 'failed' });
    expect(failed.append).toBeUndefined();
  });

  it('a dry run plans the record but stores no endpoints and renders no merge bases', async () => {
    const before = await firstImport();
    const plan = await planImport(
      openPrevious(before),
      bundle(spec({ ...listPets, ...getPet })),
      { ...options, dryRun: true },
      clock,
    );
    expect(plan.result).toMatchObject({ status: 'complete', changed: true, record: { seq: 2 } });
    const stored = (files: FolderFiles) => Object.keys(files).filter((p) => p.startsWith('.svc/endpoints/'));
    expect(stored(plan.result.files)).toEqual(stored(before));
    // Nor renders the merge bases: .svc/generated.json stays the previous import's.
    expect(before['.svc/generated.json']).toContain('listPets');
    expect(plan.result.files['.svc/generated.json']).toBe(before['.svc/generated.json']);
    const real = await planImport(
      openPrevious(before),
      bundle(spec({ ...listPets, ...getPet })),
      options,
      clock,
    );
    expect(real.result.files['.svc/generated.json']).not.toBe(before['.svc/generated.json']);
    // Its tool files are rendered when read, as the real run renders them.
    const tools = (files: FolderFiles) => Object.keys(files).filter((p) => /^Tools\/.*\.yaml$/.test(p));
    expect(tools(plan.result.files)).toEqual(tools(real.result.files));
    expect(tools(plan.result.files).length).toBeGreaterThan(1);
    for (const p of tools(real.result.files)) expect(plan.result.files[p]).toBe(real.result.files[p]);
    const managed = (files: FolderFiles) => Object.entries(files).filter(([p]) => !p.startsWith('.svc/'));
    expect(JSON.stringify(managed(plan.result.files))).toBe(JSON.stringify(managed(real.result.files)));
  });
});
