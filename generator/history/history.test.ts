import { describe, expect, it } from 'vitest';
import type { FolderFiles } from '../../folder/model.js';
import type { Endpoint, HistoryRecord } from '../../schemas/types.js';
import { sha256Hex } from './sha256-hex.js';
import { hashEndpoints, loadEndpoints, readStores, storeEndpoints } from './endpoint-store.js';
import { nextBookkeeping } from './next-bookkeeping.js';
import { lastComplete, nextSeq, readHistory } from './read-history.js';

const shared = { type: 'object', properties: { id: { type: 'integer' } } };
function ep(path: string, extra: Partial<Endpoint> = {}): Endpoint {
  return {
    method: 'GET',
    path,
    parameters: [],
    tags: [],
    deprecated: false,
    security: [],
    response: { status: '200', schema: { $ref: '#/$defs/Pet' } },
    defs: { Pet: shared },
    ...extra,
  };
}

function record(seq: number, status: 'complete' | 'failed', doc?: string): HistoryRecord {
  return {
    schemaVersion: 1,
    seq,
    status,
    statusLog: [{ status: 'pending', at: '2026-01-01T00:00:00.000Z' }],
    source: { location: 'api.json' },
    changed: true,
    summary: 's',
    ...(doc ? { revision: { documentSha256: sha256Hex(doc) } } : {}),
  };
}

describe('endpoint store', () => {
  it('round-trips endpoints and stores each endpoint and schema once', () => {
    const list = [ep('/a'), ep('/b')];
    const first = storeEndpoints({}, 1, list);
    expect(first.file?.path).toBe('.svc/endpoints/000001.json');
    const stored = JSON.parse(first.file!.content);
    expect(Object.keys(stored.schemas)).toHaveLength(1);
    // One line per endpoint and per schema: the canonical JSON their hashes were taken of.
    const lines = first.file!.content.split('\n').filter((l) => /^"[0-9a-f]{16}": /.test(l));
    const keys = [...[...first.hashes].sort(), ...Object.keys(stored.schemas)];
    expect(lines.map((l) => l.slice(1, 17))).toEqual(keys);
    const files: FolderFiles = { [first.file!.path]: first.file!.content };
    expect(loadEndpoints(files, first.hashes)).toEqual(list);

    const again = storeEndpoints(files, 2, [ep('/a'), ep('/c')]);
    expect(again.hashes[0]).toBe(first.hashes[0]);
    expect(Object.keys(JSON.parse(again.file!.content).endpoints)).toEqual([again.hashes[1]]);
    expect(storeEndpoints(files, 3, list).file).toBeUndefined();
  });

  it('stores the same with the stores read and the endpoints hashed by the caller', () => {
    const first = storeEndpoints({}, 1, [ep('/a'), ep('/b')]);
    const files: FolderFiles = { [first.file!.path]: first.file!.content };
    const list = [ep('/a'), ep('/c')];
    const hashed = hashEndpoints(list);
    const stores = readStores(files);
    expect(hashed.hashes).toEqual(storeEndpoints(files, 2, list).hashes);
    expect(storeEndpoints(files, 2, list, { stores, hashed })).toEqual(storeEndpoints(files, 2, list));
    expect(loadEndpoints(files, first.hashes, stores)).toEqual(loadEndpoints(files, first.hashes));
  });

  it('reads a pretty-printed store (an older svc) and a line store alike, each entry parsed once', () => {
    const list = [ep('/a'), ep('/b', { defs: { Pet: shared, Other: { type: 'string' } } })];
    const first = storeEndpoints({}, 1, list);
    const path = first.file!.path;
    const pretty = `${JSON.stringify(JSON.parse(first.file!.content), null, 2)}\n`;
    const lines = readStores({ [path]: first.file!.content });
    const whole = readStores({ [path]: pretty });
    expect(loadEndpoints({}, first.hashes, lines)).toEqual(list);
    expect(loadEndpoints({}, first.hashes, whole)).toEqual(list);
    // A schema two endpoints share is one object, as from a whole parse.
    const [a, b] = loadEndpoints({}, first.hashes, lines);
    expect(a!.defs!.Pet).toBe(b!.defs!.Pet);
    // An endpoint at hand with the same hash is returned as it is, not read.
    const at = ep('/a');
    expect(loadEndpoints({}, first.hashes, lines, new Map([[first.hashes[0]!, at]]))[0]).toBe(at);
  });

  it('refuses a store whose entry is not JSON when that entry is read', () => {
    const first = storeEndpoints({}, 1, [ep('/a')]);
    const path = first.file!.path;
    const broken = first.file!.content.replace(/("[0-9a-f]{16}": \{)/, '$1!');
    const stores = readStores({ [path]: broken });
    expect(() => loadEndpoints({}, first.hashes, stores)).toThrow(/not a valid endpoint store/);
    // Not in the line form at all: parsed whole, and refused at once.
    expect(() => readStores({ [path]: `${broken}x` })).toThrow(/not a valid endpoint store/);
  });
});

describe('nextBookkeeping', () => {
  it('keeps the raw documents of the three most recent valid imports, the current one only as Tools/openapi.json', () => {
    let files: FolderFiles = {};
    const docs = ['{"v":1}', '{"v":2}', 'v: 3\n', '{"v":4}'];
    docs.forEach((doc, i) => {
      const next = nextBookkeeping({
        previous: files,
        record: record(i + 1, 'complete', doc),
        endpoints: [ep(`/v${i}`)],
        document: { text: doc, sha256: sha256Hex(doc) },
        written: { 'Skills/a.md': 'x' },
      });
      // What the folder writer puts beside .svc/: the document of this import.
      files = { ...next.files, 'Tools/openapi.json': doc };
    });
    const specs = Object.keys(files).filter((p) => p.startsWith('.svc/specs/'));
    expect(specs.sort()).toEqual(
      [docs[1]!, docs[2]!]
        .map((d) => `.svc/specs/${sha256Hex(d).slice(0, 16)}.${d.startsWith('{') ? 'json' : 'yaml'}`)
        .sort(),
    );
    for (const p of specs) expect(docs).toContain(files[p]);
    const records = readHistory(files);
    expect(records.map((r) => r.seq)).toEqual([1, 2, 3, 4]);
    // Older records still rebuild their endpoint list after their raw document is gone.
    expect(loadEndpoints(files, records[0]!.endpoints!)).toEqual([ep('/v0')]);
  });

  it('a no-op import (the same document again) deletes no earlier document', () => {
    let files: FolderFiles = {};
    const docs = ['{"v":1}', '{"v":2}', '{"v":3}', '{"v":3}', '{"v":3}'];
    docs.forEach((doc, i) => {
      const next = nextBookkeeping({
        previous: files,
        record: record(i + 1, 'complete', doc),
        endpoints: [ep('/v')],
        document: { text: doc, sha256: sha256Hex(doc) },
      });
      files = { ...next.files, 'Tools/openapi.json': doc };
    });
    const specs = Object.keys(files).filter((p) => p.startsWith('.svc/specs/'));
    expect(specs.sort()).toEqual(
      [docs[0]!, docs[1]!].map((d) => `.svc/specs/${sha256Hex(d).slice(0, 16)}.json`).sort(),
    );
  });

  it('an import with the same endpoints refers to the earlier record instead of listing them', () => {
    let files: FolderFiles = {};
    for (let seq = 1; seq <= 3; seq++) {
      files = nextBookkeeping({
        previous: files,
        record: record(seq, 'complete', '{}'),
        endpoints: [ep('/a'), ep('/b')],
      }).files;
    }
    const raw = (seq: number) => JSON.parse(files[`.svc/history/00000${seq}.json`]!);
    expect(raw(1).endpoints).toHaveLength(2);
    expect(raw(2).endpoints).toBeUndefined();
    expect([raw(2).endpointsOf, raw(3).endpointsOf]).toEqual([1, 1]);
    const records = readHistory(files);
    expect(records[2]!.endpoints).toEqual(records[0]!.endpoints);
    expect(loadEndpoints(files, records[2]!.endpoints!)).toEqual([ep('/a'), ep('/b')]);
  });

  it('adds only the record for a failed import', () => {
    const ok = nextBookkeeping({
      previous: { 'config.yaml': 'x' },
      record: record(1, 'complete', '{}'),
      endpoints: [],
    });
    expect(Object.keys(ok.files)).not.toContain('config.yaml');
    const failed = nextBookkeeping({ previous: ok.files, record: record(2, 'failed') });
    const added = Object.keys(failed.files).filter((p) => !(p in ok.files));
    expect(added).toEqual(['.svc/history/000002.json']);
    for (const [p, t] of Object.entries(ok.files)) expect(failed.files[p]).toBe(t);
    const records = readHistory(failed.files);
    expect(lastComplete(records)?.seq).toBe(1);
    expect(nextSeq(records)).toBe(3);
  });

  it('names the file of a broken record', () => {
    expect(() => readHistory({ '.svc/history/000001.json': '{"seq":1}' })).toThrow(/schema/);
  });
});

describe('endpoint store: the diff-only contract', () => {
  it('stores the contract, its own defs by hash like the endpoint defs, and loads it back', () => {
    const error = { type: 'object', properties: { message: { type: 'string' } } };
    const endpoint: Endpoint = {
      method: 'GET',
      path: '/c',
      parameters: [],
      tags: [],
      deprecated: false,
      security: [],
      contract: {
        sunset: '2027-01-01',
        responses: { '404': { media: { 'application/json': { $ref: '#/$defs/Error' } } } },
        defs: { Error: error },
      },
    };
    const stored = storeEndpoints({}, 1, [endpoint]);
    const files: FolderFiles = { [stored.file!.path]: stored.file!.content };
    const text = JSON.parse(stored.file!.content) as {
      endpoints: Record<string, { contract: { defs: Record<string, string> } }>;
    };
    expect(Object.values(text.endpoints)[0]!.contract.defs.Error).toMatch(/^[0-9a-f]{16}$/);
    expect(loadEndpoints(files, stored.hashes)).toEqual([endpoint]);
  });
});
