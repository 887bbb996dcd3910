/**
 * The normalized endpoints of every import, stored once each. An endpoint's identity is the
 * hash of its content; its component schemas (`defs`, which repeat across hundreds of
 * endpoints of a large API) are stored once per import file by their own hash, so a
 * re-import of an unchanged 1,000-endpoint document adds nothing but a list of hashes.
 */
import type { FolderFiles } from '../../folder/model.js';
import { SvcError } from '../../core/svc-error.js';
import type { Endpoint } from '../../schemas/types.js';
import { canonicalJson, canonicalSha256 } from '../../core/canonical-json.js';
import { sha256Hex } from './sha256-hex.js';
import { ENDPOINTS_DIR, endpointsPath } from './paths.js';

type StoredContract = Omit<NonNullable<Endpoint['contract']>, 'defs'> & { defs?: Record<string, string> };
type StoredEndpoint = Omit<Endpoint, 'defs' | 'contract'> & {
  defs?: Record<string, string>;
  contract?: StoredContract;
};

interface StoreFile {
  endpoints: Record<string, StoredEndpoint>;
  schemas: Record<string, unknown>;
}

function shortHash(text: string): string {
  return sha256Hex(text).slice(0, 16);
}

/** Hashes endpoints; component schemas shared by object identity are hashed once. */
export class EndpointHasher {
  private readonly schemaHashes = new WeakMap<object, string>();
  readonly schemas = new Map<string, unknown>();

  schemaHash(schema: unknown): string {
    if (schema && typeof schema === 'object') {
      const known = this.schemaHashes.get(schema);
      if (known) return known;
    }
    // The digest the endpoint fingerprint took of the same shared schema already, if it did.
    const hash = canonicalSha256(schema).slice(0, 16);
    if (schema && typeof schema === 'object') this.schemaHashes.set(schema, hash);
    this.schemas.set(hash, schema);
    return hash;
  }

  private refs(defs: Record<string, unknown>): Record<string, string> {
    const refs: Record<string, string> = {};
    for (const name of Object.keys(defs).sort()) refs[name] = this.schemaHash(defs[name]);
    return refs;
  }

  stored(endpoint: Endpoint): StoredEndpoint {
    const { defs, contract, ...rest } = endpoint;
    const out: StoredEndpoint = rest;
    if (defs) out.defs = this.refs(defs);
    if (contract) {
      const { defs: extra, ...facts } = contract;
      out.contract = extra ? { ...facts, defs: this.refs(extra) } : facts;
    }
    return out;
  }

  /** The endpoint's hash, its stored form and that form's canonical JSON (what the hash is of). */
  hash(endpoint: Endpoint): { hash: string; stored: StoredEndpoint; text: string } {
    const stored = this.stored(endpoint);
    const text = canonicalJson(stored);
    return { hash: shortHash(text), stored, text };
  }
}

function storeFiles(files: FolderFiles): string[] {
  return Object.keys(files)
    .filter((p) => p.startsWith(`${ENDPOINTS_DIR}/`) && p.endsWith('.json'))
    .sort();
}

function parseStore(files: FolderFiles, path: string): StoreFile {
  try {
    const parsed = JSON.parse(files[path] ?? '') as StoreFile;
    if (!parsed || typeof parsed.endpoints !== 'object' || typeof parsed.schemas !== 'object')
      throw new Error('bad shape');
    return parsed;
  } catch (cause) {
    throw notAStore(path, cause);
  }
}

function notAStore(path: string, cause: unknown): SvcError {
  return new SvcError('FOLDER_INVALID', 'import bookkeeping file is not a valid endpoint store', {
    place: { file: path },
    cause,
  });
}

/**
 * Every endpoint store of a folder, read once: the stored endpoints and schemas by hash. A store
 * in the one-line-per-entry form storeEndpoints writes is indexed by line and each entry parsed
 * when first asked for (an import needs only the entries its diff compares, not every earlier
 * import's); any other (an older svc's pretty-printed file, a hand edit) is parsed whole.
 */
export class EndpointStores {
  private readonly endpointEntries = new Map<string, Entry>();
  private readonly schemaEntries = new Map<string, Entry>();

  constructor(files: FolderFiles) {
    for (const path of storeFiles(files)) {
      const text = files[path] ?? '';
      if (indexLines(text, path, this.endpointEntries, this.schemaEntries)) continue;
      const store = parseStore(files, path);
      for (const [h, e] of Object.entries(store.endpoints)) this.endpointEntries.set(h, { value: e });
      for (const [h, v] of Object.entries(store.schemas)) this.schemaEntries.set(h, { value: v });
    }
  }

  has(hash: string): boolean {
    return this.endpointEntries.has(hash);
  }

  endpoint(hash: string): StoredEndpoint | undefined {
    return entryValue(this.endpointEntries.get(hash)) as StoredEndpoint | undefined;
  }

  schema(hash: string): unknown {
    return entryValue(this.schemaEntries.get(hash));
  }
}

/** A stored entry: its value, or the line it is on and the file, until it is parsed. */
type Entry = { value: unknown } | { text: string; path: string };

function entryValue(entry: Entry | undefined): unknown {
  if (entry === undefined || 'value' in entry) return entry?.value;
  let value: unknown;
  try {
    value = JSON.parse(entry.text);
  } catch (cause) {
    throw notAStore(entry.path, cause);
  }
  // Parsed once: every endpoint that refers to a schema gets the same object, as from a whole parse.
  Object.assign(entry, { value });
  return value;
}

const HASH = /^[0-9a-f]{16}$/;

/**
 * Indexes a store written as storeEndpoints writes it: `{`, `"endpoints": {`, one
 * `"hash": json,` line each, `},`, `"schemas": {`, the same, `}`, `}`. False (nothing indexed)
 * for any other text, which is then parsed whole.
 */
function indexLines(
  text: string,
  path: string,
  endpoints: Map<string, Entry>,
  schemas: Map<string, Entry>,
): boolean {
  if (!text.startsWith(STORE_HEAD)) return false;
  const lines = text.split('\n');
  const found: [Map<string, Entry>, string, string][] = [];
  let section: 'endpoints' | 'schemas' | 'end' = 'endpoints';
  for (let i = 2; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '') continue;
    if (section === 'endpoints' && line === '},' && lines[i + 1] === '"schemas": {') {
      section = 'schemas';
      i++;
      continue;
    }
    if (section === 'schemas' && line === '}' && lines[i + 1] === '}') {
      section = 'end';
      i++;
      continue;
    }
    const hash = line.slice(1, 17);
    if (section === 'end' || line[0] !== '"' || !HASH.test(hash) || !line.startsWith('": ', 17)) return false;
    const json = line.endsWith(',') ? line.slice(20, -1) : line.slice(20);
    found.push([section === 'endpoints' ? endpoints : schemas, hash, json]);
  }
  if (section !== 'end') return false;
  for (const [map, hash, json] of found) map.set(hash, { text: json, path });
  return true;
}

const STORE_HEAD = '{\n"endpoints": {\n';

export function readStores(files: FolderFiles): EndpointStores {
  return new EndpointStores(files);
}

/** Endpoints hashed as the store hashes them, in input order (the hasher holds their schemas). */
export interface HashedEndpoints {
  hashes: string[];
  stored: StoredEndpoint[];
  /** Each stored form's canonical JSON. */
  texts: string[];
  hasher: EndpointHasher;
}

export function hashEndpoints(endpoints: readonly Endpoint[]): HashedEndpoints {
  const hasher = new EndpointHasher();
  const hashes: string[] = [];
  const stored: StoredEndpoint[] = [];
  const texts: string[] = [];
  for (const endpoint of endpoints) {
    const hashed = hasher.hash(endpoint);
    hashes.push(hashed.hash);
    stored.push(hashed.stored);
    texts.push(hashed.text);
  }
  return { hashes, stored, texts, hasher };
}

/**
 * Stores an import's endpoints: returns their hashes (in input order) and, when some were never
 * stored before, the new store file for this import: one line per endpoint and per schema, the
 * canonical JSON the hashes were taken of (serialized once, not again for the file). `given`:
 * the stores of `files` and the endpoints' hashes, when the caller has them (the diff's).
 */
export function storeEndpoints(
  files: FolderFiles,
  seq: number,
  endpoints: readonly Endpoint[],
  given: { stores?: EndpointStores; hashed?: HashedEndpoints } = {},
): { hashes: string[]; file?: { path: string; content: string } } {
  const known = given.stores ?? readStores(files);
  const { hashes, stored, texts, hasher } = given.hashed ?? hashEndpoints(endpoints);
  // Each new endpoint's canonical JSON, as hashed, and each schema it refers to, by hash.
  const fresh = new Map<string, string>();
  const schemas = new Map<string, string>();
  for (const [i, hash] of hashes.entries()) {
    if (known.has(hash) || fresh.has(hash)) continue;
    fresh.set(hash, texts[i]!);
    const e = stored[i]!;
    for (const h of [...Object.values(e.defs ?? {}), ...Object.values(e.contract?.defs ?? {})])
      if (!schemas.has(h)) schemas.set(h, canonicalJson(hasher.schemas.get(h)));
  }
  if (fresh.size === 0) return { hashes };
  const content = `${STORE_HEAD}${lines(fresh)}\n},\n"schemas": {\n${lines(schemas)}\n}\n}\n`;
  return { hashes, file: { path: endpointsPath(seq), content } };
}

/** `"hash": text` lines in hash order; each text is canonical JSON already. */
function lines(map: ReadonlyMap<string, string>): string {
  return [...map.keys()]
    .sort()
    .map((k) => `${JSON.stringify(k)}: ${map.get(k)}`)
    .join(',\n');
}

/**
 * The endpoints with these hashes, rebuilt from every store; a missing hash is an error.
 * `reuse`: endpoints already at hand by hash (the same content), returned as they are.
 */
export function loadEndpoints(
  files: FolderFiles,
  hashes: readonly string[],
  stores: EndpointStores = readStores(files),
  reuse?: ReadonlyMap<string, Endpoint>,
): Endpoint[] {
  return hashes.map((hash) => {
    const reused = reuse?.get(hash);
    if (reused) return reused;
    const stored = stores.endpoint(hash);
    if (!stored) {
      throw new SvcError('FOLDER_INVALID', `import bookkeeping lacks endpoint ${hash}`, {
        place: { file: ENDPOINTS_DIR },
      });
    }
    const { defs, contract, ...rest } = stored;
    const full = (refs: Record<string, string>) => {
      const out: Record<string, object | boolean> = {};
      for (const [name, h] of Object.entries(refs)) out[name] = stores.schema(h) as object | boolean;
      return out;
    };
    const endpoint = rest as Endpoint;
    if (defs) endpoint.defs = full(defs);
    if (contract) {
      const { defs: extra, ...facts } = contract;
      endpoint.contract = extra ? { ...facts, defs: full(extra) } : facts;
    }
    return endpoint;
  });
}
