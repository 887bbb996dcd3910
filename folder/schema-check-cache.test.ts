import { mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkTools } from './check-tools.js';
import type { FolderModel } from './model.js';
import {
  cacheDir,
  cacheFile,
  openSchemaCheckCache,
  PRUNE_AFTER_MS,
  schemaKey,
} from './schema-check-cache.js';

const CLEAN = { type: 'object', properties: { q: { type: 'string' } } };
// Passes the meta-schema and the $ref check, but Ajv cannot compile it: only `compile` finds it.
const LOOPS = { type: 'object', properties: { q: { $ref: '#/properties/q' } } };

function folderOf(...schemas: object[]): FolderModel {
  const tools = schemas.map((inputSchema, i) => ({
    file: `Tools/t${i}.yaml`,
    tool: {
      name: `t${i}`,
      enabled: true,
      inputSchema,
      locations: {},
      endpoint: { method: 'GET', path: '/x' },
    },
  }));
  return { tools } as unknown as FolderModel;
}

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'svc-schema-cache-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the schema check cache', () => {
  it('records the clean schemas a compiling check found, and the next run skips them', () => {
    const first = openSchemaCheckCache(dir);
    const r = checkTools(folderOf(CLEAN, LOOPS), { compile: true, cleanSchemas: first });
    expect(r.errors.map((e) => e.place.file)).toEqual(['Tools/t1.yaml']);
    first.save();
    const again = openSchemaCheckCache(dir);
    expect(again.has(JSON.stringify(CLEAN))).toBe(true);
    // A schema with a problem is never held: it is compiled, and reported with file and field, every time.
    expect(again.has(JSON.stringify(LOOPS))).toBe(false);
    const r2 = checkTools(folderOf(CLEAN, LOOPS), { compile: true, cleanSchemas: again });
    expect(r2.errors.map((e) => [e.place.file, e.place.field])).toEqual([['Tools/t1.yaml', '/inputSchema']]);
    expect(r2.errors[0]!.message).toMatch(/cannot be compiled/);
  });

  it('records nothing from a check that did not compile (what serve runs)', () => {
    const cache = openSchemaCheckCache(dir);
    checkTools(folderOf(CLEAN), { cleanSchemas: cache });
    expect(cache.has(JSON.stringify(CLEAN))).toBe(false);
  });

  it('a held schema is not checked again; any other content is', () => {
    const cache = openSchemaCheckCache(dir);
    // Held by content: what the cache holds passes unchecked (the checker recorded it as clean)…
    cache.add(JSON.stringify(LOOPS));
    expect(checkTools(folderOf(LOOPS), { compile: true, cleanSchemas: cache }).errors).toEqual([]);
    // …and one changed byte is another schema.
    const changed = { ...LOOPS, description: 'x' };
    expect(checkTools(folderOf(changed), { compile: true, cleanSchemas: cache }).errors).toHaveLength(1);
  });

  it('ignores lines that are not hashes, and files of another checker', async () => {
    const json = JSON.stringify(CLEAN);
    const key = schemaKey(json);
    await writeFile(cacheFile(dir), `garbage\n${key.slice(0, 20)}\n\0\0\0${key}x\n`);
    await writeFile(join(dir, 'schema-checks-0000000000000000.txt'), `${key}\n`);
    expect(openSchemaCheckCache(dir).has(json)).toBe(false);
    await writeFile(cacheFile(dir), `garbage\n${key}\n`);
    expect(openSchemaCheckCache(dir).has(json)).toBe(true);
  });

  it('writers that overlap leave one whole file and no temporary ones', async () => {
    const a = openSchemaCheckCache(dir);
    const b = openSchemaCheckCache(dir);
    a.add('"a"');
    b.add('"b"');
    a.save();
    b.save();
    const lines = (await readFile(cacheFile(dir), 'utf8')).trim().split('\n');
    expect(lines).toEqual([schemaKey('"b"')]);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a directory that cannot be written is no error, and nothing is kept', async () => {
    const file = join(dir, 'not-a-dir');
    await writeFile(file, '');
    const cache = openSchemaCheckCache(join(file, 'svc'));
    cache.add('"a"');
    expect(() => cache.save()).not.toThrow();
    expect(openSchemaCheckCache(join(file, 'svc')).has('"a"')).toBe(false);
  });

  it('lives in SVC_CACHE_DIR, else XDG_CACHE_HOME/svc, else ~/.cache/svc; off turns it off', () => {
    expect(cacheDir({ SVC_CACHE_DIR: '/c' })).toBe('/c');
    expect(cacheDir({ SVC_CACHE_DIR: 'off', XDG_CACHE_HOME: '/x' })).toBeUndefined();
    expect(cacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/svc');
    expect(cacheDir({})).toMatch(/\.cache\/svc$/);
    const none = openSchemaCheckCache(undefined);
    none.add('"a"');
    expect(() => none.save()).not.toThrow();
  });

  it('deletes the files of checkers unused for a month and stale temporary files, and keeps its own', async () => {
    const now = Date.UTC(2026, 10, 26);
    const day = 24 * 60 * 60 * 1000;
    const at = (ms: number) => utimes(join(dir, name), ms / 1000, ms / 1000).then(() => undefined);
    let name = '';
    const files = {
      old: 'schema-checks-00000000000000aa.txt',
      recent: 'schema-checks-00000000000000bb.txt',
      leftTemp: 'schema-checks-00000000000000aa.txt.123.456.tmp',
      notOurs: 'notes.txt',
    };
    for (const [key, file] of Object.entries(files)) {
      name = file;
      await writeFile(join(dir, file), 'x\n');
      await at(
        key === 'recent'
          ? now - 10 * day
          : key === 'leftTemp'
            ? now - 2 * 60 * 60 * 1000
            : now - PRUNE_AFTER_MS - day,
      );
    }
    // Our own file, last written long ago but read now: touched, so no other build prunes it.
    name = cacheFile(dir).split('/').at(-1)!;
    await writeFile(cacheFile(dir), `${schemaKey('"a"')}\n`);
    await at(now - PRUNE_AFTER_MS - day);
    const cache = openSchemaCheckCache(dir, () => now);
    expect((await stat(cacheFile(dir))).mtimeMs).toBe(now);
    // Nothing new to save: nothing is written, nothing pruned.
    cache.save();
    expect((await readdir(dir)).length).toBe(5);
    cache.add('"b"');
    cache.save();
    expect((await readdir(dir)).sort()).toEqual([files.recent, files.notOurs, name].sort());
  });
});
