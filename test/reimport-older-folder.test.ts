/**
 * Issue 9: the first re-import of a folder an older svc made (no .svc/generated.json, so no
 * record of what svc generated for each tool). Fields an older generator wrote (descriptions cut
 * short, HTML as written, flat nullable output schemas, binary fields without contentEncoding)
 * take today's output; the one real hand edit survives, and the report says it was kept for want
 * of a record. The folder is fixtures/reimport/older-svc/folder, written by svc at a2c20be.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { readFolder } from '../folder/index.js';
import type { FolderFiles } from '../folder/model.js';
import { type ImportResult, importFolder } from '../generator/import/index.js';
import { NO_RECORD_REASON } from '../generator/merge/index.js';
import { renderReportMarkdown, renderReportText } from '../generator/report/index.js';
import type { SvcConfig, SvcTool } from '../schemas/types.js';

const FIXTURE = path.join(import.meta.dirname, '..', 'fixtures', 'reimport', 'older-svc');
const EDITED = 'Page size; the shelter caps it at 100.';
const now = () => new Date(Date.UTC(2026, 10, 23, 12, 0, 0));

function toolOf(files: FolderFiles, key: string): SvcTool {
  const text = files[`Tools/${key}.yaml`];
  if (text === undefined) throw new Error(`no Tools/${key}.yaml`);
  return parse(text) as SvcTool;
}

type Props = Record<string, Record<string, unknown>>;
const props = (t: SvcTool) => t.inputSchema.properties as Props;

/** A copy of the older folder beside its document, with one hand edit and the tool enabled. */
async function olderFolderWithEdit(root: string): Promise<string> {
  await cp(FIXTURE, root, { recursive: true });
  const dir = path.join(root, 'folder');
  const file = path.join(dir, 'Tools', 'listPets.yaml');
  const tool = parse(await readFile(file, 'utf8')) as SvcTool;
  props(tool).limit!.description = EDITED;
  tool.enabled = true;
  await writeFile(file, stringify(tool));
  return dir;
}

describe('re-importing a folder an older svc made (no stored merge bases)', () => {
  let roots: string[] = [];
  let before: FolderFiles;
  let result: ImportResult;
  let after: FolderFiles;
  let fresh: FolderFiles;
  let again: { result: ImportResult; files: FolderFiles };
  let next: { result: ImportResult; files: FolderFiles };

  beforeAll(async () => {
    const make = async () => {
      const root = await mkdtemp(path.join(tmpdir(), 'svc-older-'));
      roots.push(root);
      return root;
    };
    const dir = await olderFolderWithEdit(await make());
    before = await readFolder(dir);
    result = await importFolder({ dir, now });
    after = await readFolder(dir);

    // What today's svc writes for the same document in a new folder.
    const freshRoot = await make();
    await cp(path.join(FIXTURE, 'petstore.yaml'), path.join(freshRoot, 'petstore.yaml'));
    const config = parse(await readFile(path.join(FIXTURE, 'folder', 'config.yaml'), 'utf8')) as SvcConfig;
    const freshDir = path.join(freshRoot, 'folder');
    expect((await importFolder({ dir: freshDir, config, now })).status).toBe('complete');
    fresh = await readFolder(freshDir);

    // The same re-import of a second copy: byte for byte the same folder and report.
    const twin = await olderFolderWithEdit(await make());
    again = { result: await importFolder({ dir: twin, now }), files: await readFolder(twin) };
    // And the re-import after it, which has a record.
    next = { result: await importFolder({ dir, now }), files: await readFolder(dir) };
  }, 120_000);

  afterAll(async () => {
    for (const root of roots) await rm(root, { recursive: true, force: true });
    roots = [];
  });

  it('the fixture is an older svc’s folder: no record, cut descriptions, flat output schemas', () => {
    expect(before['.svc/generated.json']).toBeUndefined();
    const list = toolOf(before, 'listPets');
    expect(list.description).not.toContain('rate limited');
    expect(props(list).status!.description).toBe('Only pets with this status.');
    expect((list.outputSchema?.properties as Props | undefined)?.items).toEqual({ type: ['array', 'null'] });
    expect(toolOf(before, 'getPet').description).toContain('<b>medical record</b>');
    expect(props(toolOf(before, 'uploadPhoto')).file!.contentEncoding).toBeUndefined();
  });

  it('every field svc wrote takes today’s output; only the hand edit differs from a new folder', () => {
    expect(result.status).toBe('complete');
    for (const key of ['listPets', 'getPet', 'updatePet', 'uploadPhoto']) {
      const now = toolOf(after, key);
      const today = toolOf(fresh, key);
      if (key === 'listPets') {
        expect(props(now).limit!.description).toBe(EDITED);
        expect(now.enabled).toBe(true);
        props(now).limit!.description = props(today).limit!.description;
        now.enabled = false;
      }
      expect([key, now]).toEqual([key, today]);
    }
    const list = toolOf(after, 'listPets');
    expect(list.description).toContain('rate limited to sixty calls a minute');
    expect(props(list).status!.description).toContain('pending pets have an adoption under review');
    expect(toolOf(after, 'getPet').description).toContain('**medical record**');
    expect(props(toolOf(after, 'uploadPhoto')).file!.contentEncoding).toBe('base64');
    // From now on the folder has a record of what svc generated.
    expect(after['.svc/generated.json']).toBe(fresh['.svc/generated.json']);
  });

  it('the report names the kept edit and why, and nothing else', () => {
    expect(result.report.tools.customizationsReset).toEqual([]);
    expect(result.report.tools.customizationsKept).toEqual([
      {
        key: 'listPets',
        name: 'listPets',
        enabled: true,
        endpoint: 'GET /pets',
        fields: ['inputSchema.properties.limit.description'],
        changes: [
          {
            field: 'inputSchema.properties.limit.description',
            current: props(toolOf(fresh, 'listPets')).limit!.description,
            reason: NO_RECORD_REASON,
          },
        ],
        reason: NO_RECORD_REASON,
      },
    ]);
    const markdown = renderReportMarkdown(result.report);
    expect(markdown).toContain('inputSchema.properties.limit.description');
    expect(markdown).toContain(NO_RECORD_REASON);
    expect(renderReportText(result.report)).toContain(NO_RECORD_REASON);
  });

  it('is deterministic: a second copy gives the same bytes and the same report', () => {
    expect(again.files).toEqual(after);
    expect(JSON.stringify(again.result.report)).toBe(JSON.stringify(result.report));
  });

  it('the next re-import has a record: it keeps the edit and reports nothing', () => {
    expect(next.result.status).toBe('complete');
    expect(next.result.changed).toBe(false);
    expect(props(toolOf(next.files, 'listPets')).limit!.description).toBe(EDITED);
    expect(next.result.report.tools.customizationsKept ?? []).toEqual([]);
    expect(next.result.report.tools.customizationsReset).toEqual([]);
  });
});
