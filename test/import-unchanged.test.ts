/**
 * Issue 23: an unchanged re-import is replayed from the fingerprint the last no-op import
 * recorded in .svc/unchanged.json (generator/import/plan-unchanged.ts). The replay's result is
 * the full path's, byte for byte (files on disk, report, record, checklist, progress), for
 * several folders; and every kind of change to an input defeats it.
 */
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { UNCHANGED_FILE } from '../generator/history/index.js';
import { importFolder } from '../generator/import/index.js';
import type { ChecklistRow } from '../generator/import/checklist.js';
import type { ImportOptions } from '../generator/import/import-types.js';
import { writtenInputs } from '../generator/import/plan-unchanged.js';
import { svc } from './helpers/run-cli.js';
import { clockFrom, markReplay, petstoreConfig } from './helpers/unchanged-folder.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures', 'reimport');
const roots: string[] = [];
let tick = 0;
afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

interface Scenario {
  name: string;
  contentDir?: string;
  /**
   * The document as 2-space JSON (api.yaml holding it: JSON is YAML): Tools/openapi.json is then
   * the document and a newline, which the fingerprint compares rather than hashes.
   */
  jsonDocument?: boolean;
  /** After the first import: what the user changes. */
  edit?: (
    dir: string,
  ) => Promise<void> /** Once the fingerprint is recorded: what happens before the compared imports. */;
  later?: (dir: string) => Promise<void>;
}

/** A Petstore folder (a copy of the document beside it) imported until it records a fingerprint. */
async function readyFolder(s: Scenario): Promise<{ root: string; dir: string }> {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-unchanged-'));
  roots.push(root);
  await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'api.yaml'));
  if (s.jsonDocument) {
    const document = parseYaml(await readFile(path.join(root, 'api.yaml'), 'utf8')) as unknown;
    await writeFile(path.join(root, 'api.yaml'), JSON.stringify(document, null, 2));
  }
  if (s.contentDir)
    await cp(path.join(fixtures, s.contentDir), path.join(root, 'content'), { recursive: true });
  const dir = path.join(root, 'a', 'petstore');
  const config = petstoreConfig({ content: s.contentDir !== undefined });
  const now = clockFrom(tick);
  tick += 100;
  expect((await importFolder({ dir, config, now })).status).toBe('complete');
  await s.edit?.(dir);
  expect((await importFolder({ dir, now })).status).toBe('complete');
  // The first no-op import records the fingerprint.
  expect((await importFolder({ dir, now, full: true })).changed).toBe(false);
  expect(await readFile(path.join(dir, UNCHANGED_FILE), 'utf8')).toContain('inputsSha256');
  return { root, dir };
}

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = path.join(entry.parentPath, entry.name);
    out[path.relative(dir, full)] = (await readFile(full)).toString('base64');
  }
  return out;
}

async function run(dir: string, opts: Partial<ImportOptions>, start: number) {
  const progress: ChecklistRow[][] = [];
  const result = await importFolder({
    dir,
    now: clockFrom(start),
    onProgress: (rows) => progress.push(structuredClone(rows)),
    ...opts,
  });
  return { result, progress, disk: await tree(dir) };
}

const scenarios: Scenario[] = [
  { name: 'Petstore' },
  { name: 'Petstore with a content directory', contentDir: 'content-v1' },
  {
    name: 'a tool the user enabled and edited',
    edit: async (dir) => {
      const tools = path.join(dir, 'Tools');
      const file = (await readdir(tools)).find((f) => f.endsWith('.yaml'))!;
      const text = await readFile(path.join(tools, file), 'utf8');
      await writeFile(path.join(tools, file), `${text.replace('enabled: false', 'enabled: true')}# mine\n`);
    },
  },
  {
    name: 'a changed config.yaml',
    edit: async (dir) => {
      const file = path.join(dir, 'config.yaml');
      const text = await readFile(file, 'utf8');
      await writeFile(file, `${text}diff:\n  rules:\n    request-parameter-became-required: info\n`);
    },
  },
  {
    name: 'a failed import since (its record is not the last complete one)',
    contentDir: 'content-v1',
    later: async (dir) => {
      const failed = await importFolder({ dir, location: 'missing.yaml', now: clockFrom(3000) });
      expect(failed.status).toBe('failed');
    },
  },
];

describe('an unchanged re-import, replayed', () => {
  for (const s of scenarios) {
    it(`gives the full path's result byte for byte: ${s.name}`, async () => {
      const { root, dir } = await readyFolder(s);
      await s.later?.(dir);
      const full = path.join(root, 'b', 'petstore');
      await mkdir(path.dirname(full), { recursive: true });
      await cp(dir, full, { recursive: true });
      for (const start of [5000, 6000]) {
        const replayed = await run(dir, {}, start);
        const planned = await run(full, { full: true }, start);
        expect(replayed.result.status).toBe('complete');
        expect(replayed.result).toEqual(planned.result);
        expect(replayed.progress).toEqual(planned.progress);
        expect(replayed.disk).toEqual(planned.disk);
      }
    });
  }
});

/** A copy of the folder at b/petstore without the fingerprint: the full path's twin of a/petstore. */
async function copyWithoutFingerprint(root: string, dir: string): Promise<string> {
  const full = path.join(root, 'b', 'petstore');
  await mkdir(path.dirname(full), { recursive: true });
  await cp(dir, full, { recursive: true });
  await rm(path.join(full, UNCHANGED_FILE));
  return full;
}

/** `svc <command> a/petstore` (replayed) prints and exits as `svc <command> b/petstore` (planned). */
async function expectSameOutput(root: string, [command, ...args]: string[]): Promise<void> {
  const replayed = await svc([command!, 'a/petstore', ...args], { cwd: root });
  const planned = await svc([command!, 'b/petstore', ...args], { cwd: root });
  expect(replayed.code).toBe(0);
  expect(replayed).toEqual({
    ...planned,
    stdout: planned.stdout.replaceAll('b/petstore', 'a/petstore'),
    stderr: planned.stderr.replaceAll('b/petstore', 'a/petstore'),
  });
}

describe('svc import of an unchanged folder', () => {
  it('prints, exits and writes what the full path does (a copy without the fingerprint)', async () => {
    const { root, dir } = await readyFolder({ name: 'cli', contentDir: 'content-v1' });
    const full = await copyWithoutFingerprint(root, dir);
    await expectSameOutput(root, ['import']);
    // The same files; the new record differs only in the times of its statuses.
    const untimed = (files: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(files).map(([p, b64]) => [
          p,
          Buffer.from(b64, 'base64')
            .toString('utf8')
            .replace(/"at": "[^"]+"/g, '"at": "…"'),
        ]),
      );
    expect(untimed(await tree(dir))).toEqual(untimed(await tree(full)));
  });
});

describe('svc diff of an unchanged folder (a dry run)', () => {
  it('is replayed, writes nothing, and prints what the full path prints in every format, JSON key order included', async () => {
    const { root, dir } = await readyFolder({ name: 'diff', contentDir: 'content-v1' });
    const full = await copyWithoutFingerprint(root, dir);
    const before = await tree(dir);
    for (const format of ['json', 'text', 'markdown']) {
      await expectSameOutput(root, ['diff', '--format', format]);
    }
    expect(await tree(dir)).toEqual(before);
    // It was the replay: the recorded tool count, which only a replay reads, shows in its checklist.
    await markReplay(dir);
    const dry = await run(dir, { dryRun: true }, 9500);
    expect(dry.result.checklist.find((r) => r.kind === 'tools')?.count).toBe(999);
    const planned = await run(full, { dryRun: true }, 9500);
    expect(JSON.stringify(dry.result.report)).toBe(JSON.stringify(planned.result.report));
  });
});

async function toolsRow(dir: string, opts: Partial<ImportOptions> = {}): Promise<number | undefined> {
  const { result } = await run(dir, opts, 9000);
  expect(result.status).toBe('complete');
  return result.checklist.find((r) => r.kind === 'tools')?.count;
}

describe('the replay is defeated by', () => {
  const changes: Record<string, (dir: string, root: string) => Promise<Partial<ImportOptions> | undefined>> =
    {
      'an edit to a tool file': async (dir) => {
        const file = path.join(
          dir,
          'Tools',
          (await readdir(path.join(dir, 'Tools'))).find((f) => f.endsWith('.yaml'))!,
        );
        await writeFile(file, `${await readFile(file, 'utf8')}# edited\n`);
        return undefined;
      },
      'a change to config.yaml': async (dir) => {
        const file = path.join(dir, 'config.yaml');
        await writeFile(file, (await readFile(file, 'utf8')).replace('name: Petstore', 'name: Pets'));
        return undefined;
      },
      'a changed document': async (_dir, root) => {
        const file = path.join(root, 'api.yaml');
        await writeFile(file, `${await readFile(file, 'utf8')}\n# a comment\n`);
        return undefined;
      },
      'a changed content file': async (_dir, root) => {
        const file = path.join(root, 'content', 'Docs', 'intro.md');
        await writeFile(file, `${await readFile(file, 'utf8')}\nOne more line.\n`);
        return undefined;
      },
      'a new content file': async (_dir, root) => {
        await writeFile(path.join(root, 'content', 'Docs', 'more.md'), '# More\n\nText.\n');
        return undefined;
      },
      'a bookkeeping file': async (dir) => {
        await writeFile(path.join(dir, '.svc', 'written.json'), '{}\n');
        return undefined;
      },
      'a different --openapi location': async (_dir, root) => ({ location: path.join(root, 'api.yaml') }),
      'the option to plan in full': async () => ({ full: true }),
    };

  it('nothing: the same inputs replay', async () => {
    const { dir } = await readyFolder({ name: 'marked', contentDir: 'content-v1' });
    await markReplay(dir);
    expect(await toolsRow(dir)).toBe(999);
    expect(await toolsRow(dir)).toBe(999);
  });

  it('nor by a failed import since', async () => {
    const { dir } = await readyFolder({ name: 'failed since', contentDir: 'content-v1' });
    await markReplay(dir);
    expect((await importFolder({ dir, location: 'missing.yaml', now: clockFrom(0) })).status).toBe('failed');
    expect(await toolsRow(dir)).toBe(999);
  });

  it('not by a file svc does not manage: .env is no input of the plan, and never hashed', async () => {
    const { dir } = await readyFolder({ name: 'env', contentDir: 'content-v1' });
    await markReplay(dir);
    await writeFile(path.join(dir, '.env'), 'API_KEY=secret\n');
    expect(await toolsRow(dir)).toBe(999);
  });

  it('nothing, with a 2-space JSON document (Tools/openapi.json is it and a newline)', async () => {
    const { dir, root } = await readyFolder({ name: 'json', jsonDocument: true });
    const document = await readFile(path.join(root, 'api.yaml'), 'utf8');
    expect(await readFile(path.join(dir, 'Tools', 'openapi.json'), 'utf8')).toBe(`${document}\n`);
    await markReplay(dir);
    expect(await toolsRow(dir)).toBe(999);
  });

  it('an edit to Tools/openapi.json that keeps its length, with a 2-space JSON document', async () => {
    const { dir } = await readyFolder({ name: 'json edited', jsonDocument: true });
    await markReplay(dir);
    const file = path.join(dir, 'Tools', 'openapi.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, `${text.slice(0, -1)} `);
    expect(await toolsRow(dir)).not.toBe(999);
    await markReplay(dir);
    await writeFile(file, text.replace('"', "'"));
    expect(await toolsRow(dir)).not.toBe(999);
  });

  for (const [name, change] of Object.entries(changes)) {
    it(name, async () => {
      const { dir, root } = await readyFolder({ name, contentDir: 'content-v1' });
      await markReplay(dir);
      const opts = await change(dir, root);
      const count = await toolsRow(dir, opts ?? {});
      expect(count).not.toBe(999);
      expect(count).toBeGreaterThan(0);
    });
  }

  it("an import that changes the folder: its fingerprint is the next import's, not the old one", async () => {
    const { dir } = await readyFolder({ name: 'changed', contentDir: 'content-v1' });
    const before = await readFile(path.join(dir, UNCHANGED_FILE), 'utf8');
    const file = path.join(dir, 'config.yaml');
    await writeFile(file, (await readFile(file, 'utf8')).replace('name: Petstore', 'name: Pets'));
    const changed = await importFolder({ dir, now: clockFrom(0) });
    expect(changed.changed).toBe(true);
    expect(await readFile(path.join(dir, UNCHANGED_FILE), 'utf8')).not.toBe(before);
  });
});

/** A copy of the folder beside it (the same relative paths reach the same document and content). */
async function copyFolder(root: string, dir: string, name: string): Promise<{ dir: string }> {
  const copy = path.join(root, name, 'petstore');
  await mkdir(path.dirname(copy), { recursive: true });
  await cp(dir, copy, { recursive: true });
  return { dir: copy };
}

/**
 * Issue 23: the import that writes the folder records the fingerprint of the next plain import's
 * inputs, so the FIRST unchanged import after `svc init` or an upgrade is replayed, and gives what
 * the full path does.
 */
describe('the first unchanged import after one that wrote the folder', () => {
  const writes: Record<string, (dir: string, root: string) => Promise<void>> = {
    'a first import (svc init)': async () => {},
    'an upgrade with a tool enabled': async (dir, root) => {
      const tools = path.join(dir, 'Tools');
      const file = path.join(tools, (await readdir(tools)).find((f) => f.endsWith('.yaml'))!);
      await writeFile(file, (await readFile(file, 'utf8')).replace('enabled: false', 'enabled: true'));
      expect((await importFolder({ dir, now: clockFrom(200) })).changed).toBe(false);
      await cp(path.join(fixtures, 'petstore-v2.yaml'), path.join(root, 'api.yaml'));
      expect((await importFolder({ dir, now: clockFrom(300) })).changed).toBe(true);
    },
    'an upgrade through --openapi and --content': async (dir, root) => {
      await cp(path.join(fixtures, 'petstore-v2.yaml'), path.join(root, 'api-v2.yaml'));
      await cp(path.join(fixtures, 'content-v2'), path.join(root, 'content-2'), { recursive: true });
      const moved = await importFolder({
        dir,
        location: '../../api-v2.yaml',
        contentDir: '../../content-2',
        now: clockFrom(300),
      });
      expect(moved.changed).toBe(true);
    },
  };
  for (const [name, write] of Object.entries(writes)) {
    it(`is replayed, byte for byte the full path: after ${name}`, async () => {
      const root = await mkdtemp(path.join(tmpdir(), 'svc-unchanged-'));
      roots.push(root);
      await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'api.yaml'));
      await cp(path.join(fixtures, 'content-v1'), path.join(root, 'content'), { recursive: true });
      const dir = path.join(root, 'a', 'petstore');
      const config = petstoreConfig({ content: true });
      expect((await importFolder({ dir, config, now: clockFrom(100) })).status).toBe('complete');
      await write(dir, root);
      expect(await readFile(path.join(dir, UNCHANGED_FILE), 'utf8')).toContain('inputsSha256');
      const full = await copyFolder(root, dir, 'b');
      const marked = await copyFolder(root, dir, 'c');
      await markReplay(marked.dir);
      expect(await toolsRow(marked.dir)).toBe(999);
      for (const start of [5000, 6000]) {
        const replayed = await run(dir, {}, start);
        const planned = await run(full.dir, { full: true }, start);
        expect(replayed.result.changed).toBe(false);
        expect(replayed.result).toEqual(planned.result);
        expect(replayed.progress).toEqual(planned.progress);
        expect(replayed.disk).toEqual(planned.disk);
      }
    });
  }

  it("is planned in full after a source change, and names svc's build", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'svc-unchanged-'));
    roots.push(root);
    await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'api.yaml'));
    const dir = path.join(root, 'a', 'petstore');
    const config = petstoreConfig();
    expect((await importFolder({ dir, config, now: clockFrom(100) })).status).toBe('complete');
    await markReplay(dir);
    const files = Object.fromEntries(
      Object.entries(await tree(dir)).map(([p, b64]) => [p, Buffer.from(b64, 'base64').toString('utf8')]),
    );
    const text = await readFile(path.join(root, 'api.yaml'), 'utf8');
    const bundle = { document: { text, origin: 'api.yaml', bytes: Buffer.byteLength(text) } };
    const of = (svcVersion: string) => writtenInputs(files, bundle, { dir, svcVersion });
    expect(of('0.1.0+aaaa')).not.toBe(of('0.1.0+bbbb'));
    expect(of('0.1.0+aaaa')).toBe(of('0.1.0+aaaa'));
    await writeFile(path.join(root, 'api.yaml'), `${text}\n# edited\n`);
    expect(await toolsRow(dir)).not.toBe(999);
  });
});
