/**
 * Issue 23: an unchanged import proven by the stat index (generator/import/stat-index.ts,
 * replay-quick.ts) rather than by reading and hashing the folder and the document. The quick
 * replay gives importFolder's result (but its files), and every change a stat can show (an edit
 * that keeps the size and the mtime, a touch, a file added or removed, the document replaced,
 * another svc build) sends the import the full way; a racy stat is never recorded.
 */
import type { BigIntStats } from 'node:fs';
import {
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rename,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { COARSE_RACY_MS, RACY_MS, settledBefore, statFolder } from '../folder/file-stats.js';
import { UNCHANGED_FILE } from '../generator/history/index.js';
import type { ChecklistRow } from '../generator/import/checklist.js';
import { importFolder } from '../generator/import/index.js';
import type { ImportOptions } from '../generator/import/import-types.js';
import { replayQuick } from '../generator/import/replay-quick.js';
import { keepStatIndex } from '../generator/import/stat-index.js';
import { readStatRecord, writeStatRecord } from '../folder/stat-record.js';
import { svc } from './helpers/run-cli.js';
import { clockFrom, markReplay, petstoreConfig } from './helpers/unchanged-folder.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const fixtures = path.join(here, '..', 'fixtures', 'reimport');
const roots: string[] = [];

afterAll(async () => {
  for (const root of roots) await rm(root, { recursive: true, force: true });
});

/** Until every file of `dir` was last changed more than RACY_MS ago (what the index may record). */
async function settled(dir: string): Promise<void> {
  for (;;) {
    const stats = statFolder(dir);
    const newest = Math.max(...[...stats!.files.values()].map((s) => Number(s.ctimeNs / 1_000_000n)));
    if (newest < Date.now() - 2 * RACY_MS) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

interface Ready {
  root: string;
  dir: string;
  cache: string;
  opts: ImportOptions;
}

/** A Petstore folder with its fingerprint, and a replay that read it and kept the stat index. */
async function indexedFolder({ content = false, bom = false } = {}): Promise<Ready> {
  const root = await mkdtemp(path.join(tmpdir(), 'svc-stat-index-'));
  roots.push(root);
  await cp(path.join(fixtures, 'petstore-v1.yaml'), path.join(root, 'api.yaml'));
  if (content) await cp(path.join(fixtures, 'content-v1'), path.join(root, 'content'), { recursive: true });
  if (bom) {
    const api = path.join(root, 'api.yaml');
    await writeFile(api, `\uFEFF${await readFile(api, 'utf8')}`);
  }
  const dir = path.join(root, 'a', 'petstore');
  const cache = path.join(root, 'cache');
  const config = petstoreConfig({ content });
  expect((await importFolder({ dir, config, now: clockFrom(0) })).status).toBe('complete');
  const opts: ImportOptions = { dir, statCacheDir: cache, blocking: true };
  expect(await statsOnly(opts)).toBeUndefined();
  await settled(dir);
  if (content) await settled(path.join(root, 'content'));
  // Read, matched, and its stats kept.
  expect((await importFolder({ ...opts, now: clockFrom(100) })).changed).toBe(false);
  expect(await readdir(path.join(cache, 'folder-stats'))).toHaveLength(1);
  return { root, dir, cache, opts };
}

async function tree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (entry.isFile())
      out[path.relative(dir, path.join(entry.parentPath, entry.name))] = await readFile(
        path.join(entry.parentPath, entry.name),
        'utf8',
      );
  }
  return out;
}

/** The quick replay by the stats alone (no hashing of what they do not vouch for). */
const statsOnly = (opts: ImportOptions) => replayQuick(opts, { hash: false });

const aTool = async (dir: string) =>
  path.join(dir, 'Tools', (await readdir(path.join(dir, 'Tools'))).find((f) => f.endsWith('.yaml'))!);

describe('an unchanged import proven by the stat index', () => {
  for (const content of [false, true])
    it(`gives importFolder's result but its files: the same checklist, progress, record and disk${content ? ', with a content directory' : ''}`, async () => {
      const { root, dir, opts } = await indexedFolder({ content });
      const full = path.join(root, 'b', 'petstore');
      await mkdir(path.dirname(full), { recursive: true });
      await cp(dir, full, { recursive: true });
      for (const [start, dryRun] of [
        [5000, true],
        [6000, false],
      ] as const) {
        const quickProgress: ChecklistRow[][] = [];
        const quick = await replayQuick({
          ...opts,
          dryRun,
          now: clockFrom(start),
          onProgress: (rows) => quickProgress.push(structuredClone(rows)),
        });
        const plannedProgress: ChecklistRow[][] = [];
        const planned = await importFolder({
          dir: full,
          full: true,
          dryRun,
          now: clockFrom(start),
          onProgress: (rows) => plannedProgress.push(structuredClone(rows)),
        });
        expect(quick).toBeDefined();
        // A planned dry run's record names no endpoints (it computes no endpoint store); the
        // replayed one, as importFolder's replay, is the record as an import writes it.
        const { files: _, ...rest } = planned;
        const { record, ...withoutRecord } = rest;
        expect(quick).toEqual(dryRun ? { ...withoutRecord, record: quick?.record } : rest);
        if (dryRun)
          expect({ ...quick?.record, endpointsOf: undefined }).toEqual({ ...record, endpointsOf: undefined });
        expect(quickProgress).toEqual(plannedProgress);
        expect(await tree(dir)).toEqual(await tree(full));
      }
    });

  it("gives importFolder's result when it hashes the bytes (no index kept yet)", async () => {
    const { root, dir, cache, opts } = await indexedFolder();
    await rm(path.join(cache, 'folder-stats'), { recursive: true });
    const full = path.join(root, 'b', 'petstore');
    await mkdir(path.dirname(full), { recursive: true });
    await cp(dir, full, { recursive: true });
    const hashed = await replayQuick({ ...opts, now: clockFrom(7000) });
    const { files: _, ...planned } = await importFolder({ dir: full, full: true, now: clockFrom(7000) });
    expect(hashed).toEqual(planned);
    expect(await tree(dir)).toEqual(await tree(full));
    // Kept: the next one is proven by the stats.
    await markReplay(dir);
    expect(
      (await statsOnly({ ...opts, dryRun: true }))?.checklist.find((r) => r.kind === 'tools')?.count,
    ).toBe(999);
  });

  it('prints what svc import and svc diff print the full way (SVC_CACHE_DIR set, and off)', async () => {
    const { root, cache, opts } = await indexedFolder();
    expect(await replayQuick({ ...opts, dryRun: true })).toBeDefined();
    const full = path.join(root, 'b', 'petstore');
    await mkdir(path.dirname(full), { recursive: true });
    await cp(path.join(root, 'a', 'petstore'), full, { recursive: true });
    await rm(path.join(full, UNCHANGED_FILE));
    for (const args of [['diff', '--format', 'json'], ['diff'], ['import']]) {
      const [command, ...rest] = args;
      const quick = await svc([command!, 'a/petstore', ...rest], {
        cwd: root,
        env: { SVC_CACHE_DIR: cache },
      });
      const planned = await svc([command!, 'b/petstore', ...rest], {
        cwd: root,
        env: { SVC_CACHE_DIR: 'off' },
      });
      expect(quick.code).toBe(0);
      const same = (t: string) => t.replaceAll('b/petstore', 'a/petstore').replace(/"at": "[^"]+"/g, '');
      expect({ ...quick, stdout: same(quick.stdout) }).toEqual({
        ...planned,
        stdout: same(planned.stdout),
        stderr: same(planned.stderr),
      });
    }
  });

  it('is what a marked fingerprint shows: replayed again and again from the stats', async () => {
    const { dir, opts } = await indexedFolder();
    await markReplay(dir);
    for (const start of [200, 300]) {
      const quick = await statsOnly({ ...opts, now: clockFrom(start) });
      expect(quick?.checklist.find((r) => r.kind === 'tools')?.count).toBe(999);
    }
  });
});

/** What the full way finds after a change: the tools row of the import (the marker only if replayed). */
async function fullWay(opts: ImportOptions): Promise<number | undefined> {
  const result = await importFolder({ ...opts, now: clockFrom(900) });
  return result.checklist.find((r) => r.kind === 'tools')?.count;
}

describe('the stat index is defeated by', () => {
  const changes: Record<string, (ready: Ready) => Promise<Partial<ImportOptions> | undefined>> = {
    'a new file the fingerprint covers': async ({ dir }) => {
      await writeFile(path.join(dir, '.svc', 'mine.txt'), 'mine\n');
      return undefined;
    },
    'a removed tool file': async ({ dir }) => {
      await rm(await aTool(dir));
      return undefined;
    },
    'the document replaced by a rename, same size and mtime': async ({ root }) => {
      const file = path.join(root, 'api.yaml');
      const before = await stat(file);
      const text = await readFile(file, 'utf8');
      const other = path.join(root, 'api.yaml.new');
      await writeFile(other, text.replace('Petstore', 'Petstorf'));
      await utimes(other, before.atime, before.mtime);
      await rename(other, file);
      return undefined;
    },
    'a symbolic link in the folder (readFolder follows it; the stats do not)': async ({ dir }) => {
      await symlink(await aTool(dir), path.join(dir, 'Tools', 'zz_link.yaml'));
      return undefined;
    },
    'an option (--openapi, even to the same document)': async ({ root }) => ({
      location: path.join(root, 'api.yaml'),
    }),
  };
  for (const [name, change] of Object.entries(changes)) {
    it(name, async () => {
      const ready = await indexedFolder();
      await markReplay(ready.dir);
      const opts = { ...ready.opts, ...(await change(ready)) };
      expect(await statsOnly({ ...opts, now: clockFrom(700) })).toBeUndefined();
      // Nor does hashing the bytes find them unchanged.
      expect(await replayQuick({ ...opts, dryRun: true })).toBeUndefined();
      expect(await fullWay(opts)).not.toBe(999);
    });
  }

  it('an edit that keeps the size and the mtime (the ctime moves)', async () => {
    const { dir, opts } = await indexedFolder();
    const file = await aTool(dir);
    // An mtime of whole milliseconds, which utimes can set back exactly; the index records it.
    const mtime = new Date(Date.now() - 10_000);
    await utimes(file, mtime, mtime);
    await settled(dir);
    expect((await importFolder({ ...opts, now: clockFrom(400) })).changed).toBe(false);
    await markReplay(dir);
    expect(await statsOnly({ ...opts, now: clockFrom(500) })).toBeDefined();
    const before = await stat(file, { bigint: true });
    const text = await readFile(file, 'utf8');
    const edited = text.replace('enabled: false', 'enabled: FALSE');
    expect(edited.length).toBe(text.length);
    await writeFile(file, edited);
    await utimes(file, mtime, mtime);
    const after = await stat(file, { bigint: true });
    expect([after.size, after.mtimeNs, after.ino]).toEqual([before.size, before.mtimeNs, before.ino]);
    expect(await statsOnly({ ...opts, dryRun: true })).toBeUndefined();
    expect(await replayQuick({ ...opts, now: clockFrom(700) })).toBeUndefined();
    expect(await fullWay(opts)).not.toBe(999);
  });

  const contentChanges: Record<string, (content: string) => Promise<void>> = {
    'a content file edited': async (content) => {
      const file = path.join(content, 'Docs', 'intro.md');
      await writeFile(file, `${await readFile(file, 'utf8')}\nOne more line.\n`);
    },
    'a content file added, even one the reader skips (an image)': async (content) => {
      await writeFile(path.join(content, 'Docs', 'logo.png'), 'png');
    },
    'a directory added to a kind directory': async (content) => {
      await mkdir(path.join(content, 'Docs', 'guides'));
    },
    'a kind directory added in its other spelling': async (content) => {
      await mkdir(path.join(content, 'skills'));
    },
  };
  for (const [name, change] of Object.entries(contentChanges)) {
    it(name, async () => {
      const { root, dir, opts } = await indexedFolder({ content: true });
      await markReplay(dir);
      expect(await statsOnly({ ...opts, dryRun: true })).toBeDefined();
      await change(path.join(root, 'content'));
      // With a content directory, what the stats do not vouch for is read by importFolder.
      expect(await replayQuick({ ...opts, dryRun: true })).toBeUndefined();
    });
  }

  it('not by a file beside the kind directories of the content directory (never read)', async () => {
    const { root, dir, opts } = await indexedFolder({ content: true });
    await markReplay(dir);
    await writeFile(path.join(root, 'content', 'NOTES.md'), 'mine\n');
    const quick = await statsOnly({ ...opts, dryRun: true });
    expect(quick?.checklist.find((r) => r.kind === 'tools')?.count).toBe(999);
  });

  it("another svc build: the index's header names the build it was kept by", async () => {
    const { cache, opts } = await indexedFolder();
    const records = path.join(cache, 'folder-stats');
    const [name] = await readdir(records);
    const record = JSON.parse(await readFile(path.join(records, name!), 'utf8')) as { header: string };
    expect(await statsOnly({ ...opts, dryRun: true })).toBeDefined();
    const header = JSON.parse(record.header) as { svc: string };
    record.header = JSON.stringify({ ...header, svc: `${header.svc}-other` });
    await writeFile(path.join(records, name!), JSON.stringify(record));
    expect(await statsOnly({ ...opts, dryRun: true })).toBeUndefined();
    // This build hashes the bytes, finds them unchanged and keeps its own stats.
    expect(await replayQuick({ ...opts, dryRun: true })).toBeDefined();
    expect(await statsOnly({ ...opts, dryRun: true })).toBeDefined();
  });

  it('a copy of the folder elsewhere (cp -a keeps every mtime): its own index, none yet', async () => {
    const { root, dir, opts } = await indexedFolder();
    const copy = path.join(root, 'c', 'petstore');
    await mkdir(path.dirname(copy), { recursive: true });
    await cp(dir, copy, { recursive: true, preserveTimestamps: true });
    expect(await statsOnly({ ...opts, dir: copy, dryRun: true })).toBeUndefined();
    expect(await statsOnly({ ...opts, dryRun: true })).toBeDefined();
    expect(await replayQuick({ ...opts, dir: copy, dryRun: true })).toBeDefined();
  });

  it('nothing without a cache directory (SVC_CACHE_DIR=off): the full way replays', async () => {
    const { dir, opts } = await indexedFolder();
    await markReplay(dir);
    const off = { ...opts, statCacheDir: undefined };
    expect(await replayQuick(off)).toBeUndefined();
    expect(await fullWay(off)).toBe(999);
  });

  it('a touch: the bytes are hashed, found unchanged, and their new stats kept', async () => {
    const { dir, opts } = await indexedFolder();
    await markReplay(dir);
    await utimes(await aTool(dir), new Date(), new Date());
    expect(await statsOnly(opts)).toBeUndefined();
    await settled(dir);
    const hashed = await replayQuick({ ...opts, now: clockFrom(800) });
    expect(hashed?.checklist.find((r) => r.kind === 'tools')?.count).toBe(999);
    const quick = await statsOnly({ ...opts, now: clockFrom(850) });
    expect(quick?.checklist.find((r) => r.kind === 'tools')?.count).toBe(999);
  });

  it('a document with a BOM is not hashed as bytes (its SHA-256 is of its text): importFolder replays it', async () => {
    const { root, dir, cache, opts } = await indexedFolder({ bom: true });
    await markReplay(dir);
    expect(await statsOnly({ ...opts, dryRun: true })).toBeDefined();
    await rm(path.join(cache, 'folder-stats'), { recursive: true });
    expect(await replayQuick({ ...opts, dryRun: true })).toBeUndefined();
    expect(await fullWay(opts)).toBe(999);
    expect((await readFile(path.join(root, 'api.yaml')))[0]).toBe(0xef);
  });
});

describe('the racy-timestamp rule', () => {
  const at = (ms: number, ns = 123_456n) => BigInt(ms) * 1_000_000n + ns;
  const stats = (ctimeNs: bigint, mtimeNs = ctimeNs) => ({ ctimeNs, mtimeNs }) as BigIntStats;
  const start = 1_800_000_000_000;

  it('trusts a stat whose ctime and mtime lie before the start by more than a few clock ticks', () => {
    expect(settledBefore(stats(at(start - RACY_MS - 1)), start)).toBe(true);
    expect(settledBefore(stats(at(start - RACY_MS + 1)), start)).toBe(false);
    expect(settledBefore(stats(at(start + 5)), start)).toBe(false);
    // An mtime set into the future (touch -d) is as racy as a recent change.
    expect(settledBefore(stats(at(start - 60_000), at(start + 60_000)), start)).toBe(false);
  });

  it('waits out two seconds on a file system with whole-second timestamps', () => {
    const whole = (ms: number) => BigInt(Math.floor(ms / 1000)) * 1_000_000_000n;
    expect(settledBefore(stats(whole(start - 1_000)), start)).toBe(false);
    expect(settledBefore(stats(whole(start - COARSE_RACY_MS - 1_000)), start)).toBe(true);
  });

  it('keeps no index when a file changed after (or too near) the moment the stats were taken', async () => {
    const { root, dir, cache } = await indexedFolder();
    await rm(path.join(cache, 'folder-stats'), { recursive: true });
    const folder = statFolder(dir)!;
    const files = Object.fromEntries(
      Object.entries(await tree(dir)).map(([p, t]) => [p.split(path.sep).join('/'), t]),
    );
    const indexed = { inputsSha256: 'a'.repeat(64), documentSha256: 'b'.repeat(64) };
    const real = await stat(path.join(root, 'api.yaml'), { bigint: true });
    const hourAgo = at(Date.now() - 3_600_000);
    const document = {
      path: path.join(root, 'api.yaml'),
      stat: { ...real, ctimeNs: hourAgo, mtimeNs: hourAgo } as BigIntStats,
    };
    // Stats taken a minute before now: every file of the folder changed after them.
    keepStatIndex(
      cache,
      dir,
      { started: Date.now() - 60_000, folder, source: { document } },
      Object.keys(files),
      'h',
      indexed,
    );
    await expect(readdir(path.join(cache, 'folder-stats'))).rejects.toThrow();
    keepStatIndex(
      cache,
      dir,
      { started: Date.now(), folder, source: { document } },
      Object.keys(files),
      'h',
      indexed,
    );
    expect(await readdir(path.join(cache, 'folder-stats'))).toHaveLength(1);
  });
});

describe('the stat records', () => {
  it("are the user's alone, and at most 64 are kept (the least recently written go)", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'svc-stat-records-'));
    roots.push(root);
    const cache = path.join(root, 'cache');
    const dirs: string[] = [];
    const write = async (i: number) => {
      const dir = path.join(root, `f${i}`);
      await mkdir(dir);
      writeStatRecord(cache, dir, { n: i });
      dirs.push(dir);
    };
    for (let i = 0; i < 64; i++) await write(i);
    // Distinct times, f0 the oldest.
    for (const name of await readdir(path.join(cache, 'folder-stats'))) {
      const n = (JSON.parse(await readFile(path.join(cache, 'folder-stats', name), 'utf8')) as { n: number })
        .n;
      const at = new Date(Date.now() - (100 - n) * 1000);
      await utimes(path.join(cache, 'folder-stats', name), at, at);
    }
    await write(64);
    await write(65);
    expect(await readdir(path.join(cache, 'folder-stats'))).toHaveLength(64);
    expect([0, 1, 2, 65].map((i) => readStatRecord(cache, dirs[i]!)?.value)).toEqual([
      undefined,
      undefined,
      expect.objectContaining({ n: 2 }),
      expect.objectContaining({ n: 65 }),
    ]);
    expect(((await stat(path.join(cache, 'folder-stats'))).mode & 0o777).toString(8)).toBe('700');
  });
});
