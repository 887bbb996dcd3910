/**
 * The tool schemas this machine has already checked and found clean, by content: `svc validate`
 * compiles every input and output schema with Ajv (~0.5 ms each, half a second for GitHub's 930),
 * and a folder re-checked after a re-import or in the next CI step repeats almost all of them.
 *
 * One file of hashes in the user's cache directory (SVC_CACHE_DIR, else $XDG_CACHE_HOME/svc, else
 * ~/.cache/svc), never in the folder: it says nothing about the folder and is never committed.
 * - Only clean schemas are recorded, so a schema with a problem is checked, and reported with
 *   its file and field, every time.
 * - Keyed by the schema's content (SHA-256 of its JSON) under a fingerprint of the checker: the
 *   cache format, Node's version, the versions of Ajv, ajv-formats and re2js, svc's version and
 *   the text of the checking code itself. A change to any of them starts a new, empty file, so an
 *   entry from another checker is never trusted.
 * - Safe when corrupted or shared: a line that is not a hash is ignored (a random one matches no
 *   schema), a file that cannot be read is an empty cache, and a write goes to a temporary file
 *   renamed over the old one, so concurrent writers leave one whole file (the loser's new entries
 *   are checked again next time). A cache that cannot be written is no error.
 * - Pruned: each svc build (each checker) starts its own file, so the file of a build not used
 *   for PRUNE_AFTER_MS is deleted when another is written, as is a temporary file a killed
 *   writer left. A file in use is touched at most once a day, which is what keeps it.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync, unlinkSync, utimesSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageVersion } from '../core/package-root.js';
import { replaceCacheFile } from './replace-cache-file.js';

/** Raised when what a line means changes. */
const FORMAT = 'svc-schema-checks/1';
/** Entries kept (the newest): 33 bytes each, so the file stays under 4 MB. */
const MAX_ENTRIES = 100_000;
const HASH = /^[0-9a-f]{32}$/;
const DAY_MS = 24 * 60 * 60 * 1000;
/** A checker's file unused this long is deleted: the svc build that wrote it is most likely gone. */
export const PRUNE_AFTER_MS = 30 * DAY_MS;
/** A temporary file this old was left by a killed writer (a live one renames it within seconds). */
const TEMP_AFTER_MS = 60 * 60 * 1000;
const CACHE_FILE = /^schema-checks-[0-9a-f]{16}\.txt(\.\d+\.\d+\.tmp)?$/;

export interface SchemaCheckCache {
  /** Whether a schema of this content (its JSON text) was found clean by this very checker. */
  has(json: string): boolean;
  /** Records a schema (its JSON text) found clean with every check, compiling included. */
  add(json: string): void;
  /** Writes the new entries, if any (errors are ignored: a cache is an optimization). */
  save(): void;
}

/** The key of a schema: a hash of its JSON text. */
export function schemaKey(json: string): string {
  return createHash('sha256').update(json).digest('hex').slice(0, 32);
}

/** The cache directory, or undefined when caching is off (SVC_CACHE_DIR=off) or no home is known. */
export function cacheDir(env: NodeJS.ProcessEnv): string | undefined {
  const own = env.SVC_CACHE_DIR?.trim();
  if (own === 'off') return undefined;
  if (own) return path.resolve(own);
  const xdg = env.XDG_CACHE_HOME?.trim();
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, 'svc');
  let home: string;
  try {
    home = homedir();
  } catch {
    return undefined;
  }
  return home ? path.join(home, '.cache', 'svc') : undefined;
}

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '(missing)';
  }
}

/** The manifest of a package (found upwards from its entry: not every package exports package.json). */
function manifestOf(require: NodeJS.Require, name: string): string {
  let dir: string;
  try {
    dir = path.dirname(require.resolve(name));
  } catch {
    return `${name}:(missing)`;
  }
  for (;;) {
    const text = readText(path.join(dir, 'package.json'));
    if (text.includes(`"name": "${name}"`) || text.includes(`"name":"${name}"`))
      return `${name}:${text.match(/"version"\s*:\s*"([^"]*)"/)?.[1] ?? '(no version)'}`;
    const parent = path.dirname(dir);
    if (parent === dir) return `${name}:(missing)`;
    dir = parent;
  }
}

function versionOrNone(): string {
  try {
    return packageVersion();
  } catch {
    return '(no package)';
  }
}

/**
 * The checker's packages and code, hashed: the versions of Ajv, ajv-formats and re2js, svc's
 * version, and the checking code itself (a build between two releases changes it too).
 */
export function checkerCodeHash(): string {
  const here = fileURLToPath(import.meta.url);
  const ext = path.extname(here);
  const require = createRequire(import.meta.url);
  const parts = [
    ...['ajv', 'ajv-formats', 're2js'].map((name) => manifestOf(require, name)),
    versionOrNone(),
    ...['check-tools', 'linear-pattern', '../schemas/compiled/meta-schema-validator'].map((name) =>
      readText(path.join(path.dirname(here), `${name}${ext}`)),
    ),
  ];
  return sha256Parts(parts);
}

/**
 * In the bundle `svc serve` runs from, checkerCodeHash() as the build computed it from the compiled
 * folder/ and the packages the bundle holds (scripts/bundle-serve.mjs defines it): the bundle has
 * no folder/ beside it, and serve shares validate's cache file. Undefined anywhere else.
 */
declare const SVC_CHECKER_CODE_HASH: string | undefined;

function sha256Parts(parts: readonly string[]): string {
  const hash = createHash('sha256');
  for (const part of parts) hash.update(part).update('\u0000');
  return hash.digest('hex');
}

let fingerprintMemo: string | undefined;

/** What the verdict of a check depends on besides the schema, as a short hash. */
export function checkerFingerprint(): string {
  if (fingerprintMemo) return fingerprintMemo;
  const code = typeof SVC_CHECKER_CODE_HASH === 'string' ? SVC_CHECKER_CODE_HASH : checkerCodeHash();
  fingerprintMemo = sha256Parts([FORMAT, process.version, code]).slice(0, 16);
  return fingerprintMemo;
}

/** The cache file of this checker under `dir`. */
export function cacheFile(dir: string): string {
  return path.join(dir, `schema-checks-${checkerFingerprint()}.txt`);
}

/**
 * Deletes the other checkers' files unused for PRUNE_AFTER_MS and temporary files older than an
 * hour, from `dir`; only names this cache writes are ever touched. Errors are ignored.
 */
export function pruneSchemaCheckCache(dir: string, keep: string, now: number): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === path.basename(keep) || !CACHE_FILE.test(name)) continue;
    const file = path.join(dir, name);
    try {
      const age = now - statSync(file).mtimeMs;
      if (age > (name.endsWith('.tmp') ? TEMP_AFTER_MS : PRUNE_AFTER_MS)) unlinkSync(file);
    } catch {
      // Gone already, or not ours to delete: nothing to do.
    }
  }
}

/** Reads the hashes in `file`, and marks the file used (at most once a day) so that no pruning takes it. */
function readKnown(file: string, now: number): Set<string> {
  const known = new Set<string>();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
    if (now - statSync(file).mtimeMs > DAY_MS) utimesSync(file, now / 1000, now / 1000);
  } catch {
    // No cache yet, or not readable (or not ours to touch): every schema is checked.
  }
  for (const line of text.split('\n')) if (HASH.test(line)) known.add(line);
  return known;
}

/**
 * Opens the cache under `dir` (see cacheDir); undefined `dir` gives a cache that keeps nothing.
 * `now` (ms since the epoch) is the clock pruning and touching go by.
 */
export function openSchemaCheckCache(
  dir: string | undefined,
  now: () => number = Date.now,
): SchemaCheckCache {
  const file = dir === undefined ? undefined : cacheFile(dir);
  const known = file === undefined ? new Set<string>() : readKnown(file, now());
  const added: string[] = [];
  // add() follows has() for the same schema: its key is hashed once.
  let last: { json: string; key: string } | undefined;
  const keyOf = (json: string) => {
    if (last?.json !== json) last = { json, key: schemaKey(json) };
    return last.key;
  };
  return {
    has: (json) => known.has(keyOf(json)),
    add(json) {
      const key = keyOf(json);
      if (known.has(key)) return;
      known.add(key);
      added.push(key);
    },
    save() {
      if (file === undefined || added.length === 0) return;
      // Oldest first: a full cache drops the entries recorded longest ago.
      const keys = [...known].slice(-MAX_ENTRIES);
      if (!replaceCacheFile(file, `${keys.join('\n')}\n`)) return;
      added.length = 0;
      pruneSchemaCheckCache(path.dirname(file), file, now());
    },
  };
}
