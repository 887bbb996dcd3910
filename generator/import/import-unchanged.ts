/**
 * The shell's shortcut for an unchanged re-import (plan-unchanged.ts decides, this reads): with
 * the fingerprint a no-op import left in `.svc/unchanged.json`, read config.yaml alone (not the
 * whole folder's tools), the source bundle, and compare. A match is replayed; anything else (no
 * fingerprint, a config that does not load, a source that cannot be read, other inputs) goes the
 * full path, which reuses the bundle when it was read. Nothing here writes, reports progress or
 * throws: the full path meets every problem itself, in its own order.
 */
import { loadConfigFast } from '../../folder/load-config-fast.js';
import type { FolderFiles, FolderModel } from '../../folder/model.js';
import type { HistoryRecord } from '../../schemas/types.js';
import { type ImportTarget, importTarget } from './import-target.js';
import type { SourceBundle } from './import-types.js';
import { sha256Hex } from '../history/sha256-hex.js';
import {
  type FingerprintOptions,
  mayReplay,
  type Replayed,
  replayUnchanged,
  UNCHANGED_FILE,
  unchangedInputs,
} from './plan-unchanged.js';
import { confineSource, readSourceBundle } from './read-source-bundle.js';
import { type StatsBefore, sourceStats } from './stat-index.js';

export interface UnchangedTry {
  target: ImportTarget;
  bundle: SourceBundle;
  inputsSha256?: string;
  documentSha256?: string;
  /** The inputs matched: the result, and the one record to append. */
  replayed?: Replayed;
}

export async function tryUnchanged(
  files: FolderFiles,
  opts: FingerprintOptions,
  statusLog: HistoryRecord['statusLog'],
  now: () => Date,
  /** The stats taken before the folder was read: the document's is added before it is read. */
  before?: StatsBefore,
): Promise<UnchangedTry | undefined> {
  if (opts.config || opts.full || opts.userFiles || files[UNCHANGED_FILE] === undefined) return undefined;
  // As svc wrote it, without the `yaml` package; else read as loadFolder reads it.
  const config = loadConfigFast(files) ?? (await import('../../folder/load-yaml-file.js')).loadConfig(files);
  if (!config) return undefined;
  // importTarget and confineSource read only the folder's config.
  const previous = { files, folder: { config } as FolderModel };
  const found = importTarget(previous, opts);
  if (!found.ok) return undefined;
  let bundle: SourceBundle;
  try {
    await confineSource(previous, opts);
    // The stats of what the bundle reads, taken before it reads them (stat-index.ts).
    if (before) before.source = sourceStats(found.target, opts.dir);
    bundle = await readSourceBundle(found.target, opts.dir);
  } catch {
    return undefined;
  }
  // Another document (an upgrade) misses at once; the same one has the whole folder hashed.
  const documentSha256 = bundle.document.sha256 ?? sha256Hex(bundle.document.text);
  if (!mayReplay(files, documentSha256)) return { target: found.target, bundle };
  const inputsSha256 = unchangedInputs(files, bundle, opts, documentSha256);
  const tried = { target: found.target, bundle, documentSha256, ...(inputsSha256 ? { inputsSha256 } : {}) };
  try {
    const replayed = replayUnchanged(files, inputsSha256, statusLog, now);
    return replayed ? { ...tried, replayed } : tried;
  } catch {
    return tried;
  }
}
