/**
 * Issue 4 scenario on a real API description (Swagger Petstore 3, trimmed): import v1 with
 * content, make the decisions a reviewer makes in the folder (enable, rename, re-describe,
 * hand-edit a skill), import v2, and check every merge rule file by file and in the report.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFolder } from '../folder/index.js';
import type { FolderFiles } from '../folder/model.js';
import { readHistory, UNCHANGED_FILE } from '../generator/history/index.js';
import { type ImportResult, importFolder } from '../generator/import/index.js';
import { renderReportMarkdown } from '../generator/report/index.js';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { validate } from '../schemas/validate.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures', 'reimport');
let root: string;
let dir: string;
let clock = 0;
const now = () => new Date(Date.UTC(2026, 0, 1, 0, 0, clock++));

function config(): SvcConfig {
  const rel = (p: string) => path.relative(dir, path.join(fixtures, p)).split(path.sep).join('/');
  return {
    schemaVersion: 1,
    server: { id: 'petstore', name: 'Default', published: false },
    app: { name: 'Petstore', provider: 'openapi' },
    source: { kind: 'openapi', location: rel('petstore-v1.yaml'), contentDir: rel('content-v1') },
    auth: { mode: 'none', hasAuthSecret: false },
    apiBaseUrl: '',
    requiredEnv: [],
  };
}

async function editTool(key: string, edit: (tool: SvcTool) => void): Promise<void> {
  const file = path.join(dir, 'Tools', `${key}.yaml`);
  const text = await readFile(file, 'utf8');
  const tool = parse(text) as SvcTool;
  edit(tool);
  await writeFile(file, stringify(tool));
}

function tool(files: FolderFiles, key: string): SvcTool | undefined {
  const text = files[`Tools/${key}.yaml`];
  return text === undefined ? undefined : (parse(text) as SvcTool);
}

function nonHistory(files: FolderFiles): FolderFiles {
  return Object.fromEntries(Object.entries(files).filter(([p]) => !p.startsWith('.svc/history/')));
}

describe('re-import scenario: Petstore v1 → v2', () => {
  let first: ImportResult;
  let second: ImportResult;
  let afterV1: FolderFiles;
  let beforeV2: FolderFiles;
  let afterV2: FolderFiles;

  beforeAll(async () => {
    root = await mkdtemp(path.join(tmpdir(), 'svc-reimport-'));
    dir = path.join(root, 'petstore');
    first = await importFolder({ dir, config: config(), now });
    afterV1 = await readFolder(dir);

    // The reviewer's decisions, made in the folder.
    await editTool('findPetsByStatus', (t) => {
      t.enabled = true; // will get a breaking change
      const status = (t.inputSchema.properties as Record<string, Record<string, unknown>>).status!;
      status.default = 'sold'; // v2 drops "sold" from the enum: the edit is wrong now and is reset
      status.description = 'Which pets to list.'; // survives
    });
    await editTool('deleteUser', (t) => {
      t.enabled = true; // its endpoint disappears
    });
    await editTool('updatePet', (t) => {
      t.name = 'replace_pet'; // endpoint unchanged: the rename stays
      t.description = 'Replace a pet record.';
      t.enabled = true;
      t.sortOrder = 40;
    });
    await editTool('getOrderById', (t) => {
      t.description = 'Look up an order.'; // the endpoint changes, its description does not: kept
    });
    await editTool('findPetsByTags', (t) => {
      t.description = 'Search by tag.'; // removed but customized: kept, stale
    });
    // Enabling an imported skill is a review decision, not a hand edit: it keeps receiving updates.
    const adopt = path.join(dir, 'Skills', 'adopt-a-pet.md');
    await writeFile(adopt, (await readFile(adopt, 'utf8')).replace('enabled: false', 'enabled: true'));
    const skill = path.join(dir, 'Skills', 'track-orders.md');
    await writeFile(skill, `${await readFile(skill, 'utf8')}\nHand-written note.\n`);
    await writeFile(
      path.join(dir, 'Skills', 'my-own.md'),
      '---\ndescription: Written in the folder.\nenabled: true\n---\nMine.\n',
    );
    await writeFile(path.join(dir, 'NOTES.txt'), 'not managed by svc\n');
    // A manual tool (what `svc tool add` writes): never touched by a re-import.
    const manual = parse(await readFile(path.join(dir, 'Tools', 'logoutUser.yaml'), 'utf8')) as SvcTool;
    manual.name = 'ping';
    manual.origin = 'manual';
    manual.enabled = true;
    manual.endpoint = { method: 'GET', path: '/user/logout' }; // shares an endpoint with an imported tool
    delete manual.generated;
    await writeFile(path.join(dir, 'Tools', 'ping.yaml'), `# hand-written\n${stringify(manual)}`);
    beforeV2 = await readFolder(dir);

    second = await importFolder({
      dir,
      location: path.relative(dir, path.join(fixtures, 'petstore-v2.yaml')),
      contentDir: path.relative(dir, path.join(fixtures, 'content-v2')),
      now,
    });
    afterV2 = await readFolder(dir);
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('first import: every tool disabled, base URL from the document, checklist settled with counts', () => {
    expect(first.error).toBeUndefined();
    expect(first.status).toBe('complete');
    const tools = Object.keys(afterV1).filter((p) => /^Tools\/.*\.yaml$/.test(p));
    expect(tools).toHaveLength(16);
    for (const p of tools) expect(parse(afterV1[p]!).enabled).toBe(false);
    expect(parse(afterV1['config.yaml']!).apiBaseUrl).toBe('https://petstore3.swagger.io/api/v3');
    expect(first.checklist.map((r) => [r.label, r.status, r.count])).toEqual([
      ['Tools', 'complete', 16],
      ['Resources', 'complete', 0],
      ['Skills', 'complete', 2],
      ['Prompts', 'complete', 0],
      ['Widgets', 'complete', 0],
      ['Documentation', 'complete', 1],
    ]);
    expect(first.report.summary).toBe('First import: 16 endpoints, 16 tools (0 enabled), 3 content items.');
    // The current document is stored once, as Tools/openapi.json; .svc/specs/ holds earlier ones.
    expect(Object.keys(afterV1).filter((p) => p.startsWith('.svc/specs/'))).toEqual([]);
    const specs = Object.keys(afterV2).filter((p) => p.startsWith('.svc/specs/'));
    expect(specs).toHaveLength(1);
    expect(afterV2[specs[0]!]).toBe(afterV1['Tools/openapi.json']);
    expect(afterV2['Tools/openapi.json']).not.toBe(afterV1['Tools/openapi.json']);
    const record = readHistory(afterV1)[0]!;
    expect(record.report?.counts.endpoints.added).toBe(16);
    expect(record.report?.endpoints).toEqual([]);
  });

  it('never changes enabled or sortOrder, adds new endpoints disabled at the end', () => {
    expect(second.status).toBe('complete');
    expect(tool(afterV2, 'findPetsByStatus')).toMatchObject({ enabled: true });
    const maxBefore = Math.max(
      ...Object.keys(beforeV2)
        .filter((p) => /^Tools\/.*\.yaml$/.test(p))
        .map((p) => (parse(beforeV2[p]!) as SvcTool).sortOrder),
    );
    const history = tool(afterV2, 'getPetHistory')!;
    const cancel = tool(afterV2, 'cancelOrder')!;
    expect(history.enabled).toBe(false);
    expect(cancel.enabled).toBe(false);
    expect(Math.min(history.sortOrder, cancel.sortOrder)).toBeGreaterThan(maxBefore);
    for (const p of Object.keys(beforeV2).filter((x) => /^Tools\/.*\.yaml$/.test(x))) {
      const before = parse(beforeV2[p]!) as SvcTool;
      const after = afterV2[p] === undefined ? undefined : (parse(afterV2[p]!) as SvcTool);
      if (after) expect([p, after.enabled, after.sortOrder]).toEqual([p, before.enabled, before.sortOrder]);
    }
  });

  it('keeps customizations the endpoint change leaves valid, resets the one it makes wrong, and says why', () => {
    expect(tool(afterV2, 'updatePet')).toMatchObject({
      name: 'replace_pet',
      description: 'Replace a pet record.',
    });
    // Unchanged meaning → unchanged bytes (the reviewer's own YAML layout survives).
    expect(afterV2['Tools/updatePet.yaml']).toBe(beforeV2['Tools/updatePet.yaml']);
    // A response property was removed: not a reason to undo a description.
    expect(tool(afterV2, 'getOrderById')!.description).toBe('Look up an order.');
    const status = (
      tool(afterV2, 'findPetsByStatus')!.inputSchema.properties as Record<string, Record<string, unknown>>
    ).status!;
    expect(status.description).toBe('Which pets to list.');
    expect(status.default).not.toBe('sold');
    expect(second.report.tools.customizationsReset).toEqual([
      expect.objectContaining({
        key: 'findPetsByStatus',
        enabled: true,
        fields: ['inputSchema.properties.status.default'],
        changes: [
          expect.objectContaining({
            field: 'inputSchema.properties.status.default',
            previous: 'sold',
            reason: 'the edited default is no longer a valid value of the parameter',
          }),
        ],
      }),
    ]);
  });

  it('never touches a manual tool, even one on an imported endpoint', () => {
    expect(afterV2['Tools/ping.yaml']).toBe(beforeV2['Tools/ping.yaml']);
    expect(tool(afterV2, 'logoutUser')).toMatchObject({ origin: 'imported', enabled: false });
  });

  it('removes untouched tools of removed endpoints, keeps touched ones stale and warns', () => {
    expect(tool(afterV2, 'findPetsByTags')).toMatchObject({ stale: true, description: 'Search by tag.' });
    expect(tool(afterV2, 'deleteUser')).toMatchObject({ stale: true, enabled: true });
    const warnings = second.report.warnings.map((w) => `${w.id} ${w.tool ?? w.file}`);
    expect(warnings).toEqual(
      expect.arrayContaining([
        'enabled-tool-endpoint-removed deleteUser',
        'tool-kept-stale findPetsByTags',
        'enabled-tool-breaking-change findPetsByStatus',
        'customization-reset findPetsByStatus',
        'content-skipped Skills/track-orders.md',
      ]),
    );
    // updatePet is enabled but its endpoint did not change: no warning about it.
    expect(warnings.some((w) => w.includes('updatePet'))).toBe(false);
  });

  it('reports every endpoint change with its rule, classed breaking or not', async () => {
    const r = second.report;
    expect(validate('report', r).ok).toBe(true);
    expect(r.counts.endpoints).toEqual({
      before: 16,
      after: 16,
      added: 2,
      removed: 2,
      changed: 7,
      unchanged: 7,
      breaking: 5,
    });
    const byKey = Object.fromEntries(r.endpoints.map((e) => [e.key, e]));
    const ids = (key: string) => byKey[key]!.changes.map((c) => c.id);
    expect(byKey['GET /pet/findByTags']!.kind).toBe('removed');
    expect(byKey['DELETE /user/{username}']!.kind).toBe('removed');
    expect(byKey['GET /pet/{petId}/history']!.kind).toBe('added');
    expect(ids('GET /pet/findByStatus')).toEqual(
      expect.arrayContaining(['request-parameter-became-required', 'request-parameter-enum-value-removed']),
    );
    expect(ids('POST /store/order')).toEqual(
      expect.arrayContaining(['request-body-became-required', 'request-property-became-required']),
    );
    expect(ids('GET /store/order/{orderId}')).toContain('response-property-removed');
    expect(byKey['GET /store/inventory']).toMatchObject({ breaking: false, kind: 'changed' });
    expect(ids('GET /store/inventory')).toEqual(['endpoint-deprecated']);
    expect(ids('GET /user/login')).toEqual(['request-parameter-added-optional']);
    expect(byKey['POST /user']!.breaking).toBe(false);
    expect(ids('GET /user/{username}')).toEqual(['response-property-added']);
    const md = renderReportMarkdown(r);
    expect(md.split('\n')[0]).toBe(`**${r.summary}**`);
    expect(md).toContain('Edits reset');
    // The whole comment, for review (`npx vitest run -u test/reimport-scenario.test.ts` rewrites it).
    await expect(md).toMatchFileSnapshot('../fixtures/reimport/petstore-v1-v2.report.md');
  });

  it('updates pristine content (keeping enabled/sortOrder), skips hand-edited and keeps hand-made items', () => {
    const adopt = afterV2['Skills/adopt-a-pet.md']!;
    expect(adopt).toContain('the status is now required');
    expect(adopt).not.toContain('sortOrder: 9');
    expect(adopt).toContain('enabled: true');
    expect(afterV2['Skills/track-orders.md']).toBe(beforeV2['Skills/track-orders.md']);
    expect(afterV2['Skills/my-own.md']).toBe(beforeV2['Skills/my-own.md']);
    expect(afterV2['Prompts/checkout.md']).toContain('enabled: false');
    expect(afterV2['Docs/intro.md']).toBe(beforeV2['Docs/intro.md']);
    expect(afterV2['NOTES.txt']).toBe('not managed by svc\n');
    const actions = second.report.content.map((c) => `${c.action} ${c.file}`);
    expect(actions).toEqual([
      'added Prompts/checkout.md',
      'updated Skills/adopt-a-pet.md',
      'skipped Skills/track-orders.md',
    ]);
    expect(second.checklist.map((r) => `${r.label}:${r.count}`)).toEqual([
      'Tools:16',
      'Resources:0',
      'Skills:2',
      'Prompts:1',
      'Widgets:0',
      'Documentation:1',
    ]);
  });

  it('importing the same source again changes no file but the history (and records its inputs)', async () => {
    const again = await importFolder({
      dir,
      location: path.relative(dir, path.join(fixtures, 'petstore-v2.yaml')),
      contentDir: path.relative(dir, path.join(fixtures, 'content-v2')),
      now,
    });
    expect(again.status).toBe('complete');
    expect(again.changed).toBe(false);
    expect(again.report.endpoints).toEqual([]);
    expect(again.report.summary).toMatch(/^Nothing changed|skipped/);
    const files = await readFolder(dir);
    // A no-op import records the fingerprint of its inputs: the same import again is replayed.
    const { [UNCHANGED_FILE]: fingerprint, ...rest } = nonHistory(files);
    expect(fingerprint).toContain('inputsSha256');
    expect(rest).toEqual(nonHistory(afterV2));
    const added = Object.keys(files).filter((p) => !(p in afterV2));
    expect(added).toEqual(['.svc/history/000003.json', UNCHANGED_FILE]);
  });

  it('a failed import changes nothing but appends its record; the checklist marks the failed step', async () => {
    const beforeFail = await readFolder(dir);
    const failed = await importFolder({ dir, location: 'does-not-exist.yaml', now });
    expect(failed.status).toBe('failed');
    expect(failed.error?.code).toBe('SOURCE_NOT_FOUND');
    expect(failed.checklist[0]).toMatchObject({ label: 'Tools', status: 'failed' });
    expect(failed.checklist[0]!.error).toContain('SOURCE_NOT_FOUND');
    const files = await readFolder(dir);
    expect(nonHistory(files)).toEqual(nonHistory(beforeFail));
    const records = readHistory(files);
    expect(records.map((r) => `${r.seq}:${r.status}`)).toEqual([
      '1:complete',
      '2:complete',
      '3:complete',
      '4:failed',
    ]);
    expect(records[3]!.statusLog.map((s) => s.status)).toEqual(['pending', 'processing', 'failed']);
    expect(records[1]!.statusLog.map((s) => s.status)).toEqual(['pending', 'processing', 'complete']);
  });

  it('invalid content fails closed: the folder keeps its files, the failed row names the file', async () => {
    const beforeFail = await readFolder(dir);
    const rows: string[][] = [];
    const failed = await importFolder({
      dir,
      location: path.relative(dir, path.join(fixtures, 'petstore-v2.yaml')),
      contentDir: path.join(fixtures, '..', 'content-broken', 'unknown-key'),
      now,
      onProgress: (r) => rows.push(r.map((x) => `${x.label}:${x.status}`)),
    });
    expect(failed.status).toBe('failed');
    expect(failed.error?.place.file).toContain('Prompts/extra.md');
    const prompts = failed.checklist.find((r) => r.kind === 'prompts')!;
    expect(prompts.status).toBe('failed');
    expect(prompts.error).toContain('Prompts/extra.md');
    // The rows moved from pending through processing before the failure settled them.
    expect(rows[0]).toContain('Tools:processing');
    expect(rows.some((r) => r.includes('Skills:processing'))).toBe(true);
    const files = await readFolder(dir);
    expect(nonHistory(files)).toEqual(nonHistory(beforeFail));
    expect(readHistory(files).at(-1)).toMatchObject({
      status: 'failed',
      error: { code: 'CONTENT_INVALID', step: 'prompts' },
    });
  });

  it('same inputs and clock → the same bytes, file by file', async () => {
    const fixed = () => new Date(Date.UTC(2026, 0, 2));
    const a = path.join(root, 'same-a');
    const b = path.join(root, 'same-b');
    const cfg = config(); // relative paths: the same from both sibling folders
    expect((await importFolder({ dir: a, config: cfg, now: fixed })).status).toBe('complete');
    expect((await importFolder({ dir: b, config: cfg, now: fixed })).status).toBe('complete');
    expect(await readFolder(a)).toEqual(await readFolder(b));
  });

  it('a failed first import writes nothing at all', async () => {
    const target = path.join(root, 'never');
    const result = await importFolder({
      dir: target,
      config: {
        ...config(),
        source: { kind: 'openapi', location: path.join(fixtures, 'content-v1', 'Docs', 'intro.md') },
      },
      now,
    });
    expect(result.status).toBe('failed');
    expect(result.files).toEqual({});
    await expect(readFolder(target)).rejects.toThrow();
  });
});
