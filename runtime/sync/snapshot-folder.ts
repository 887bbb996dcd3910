/**
 * Turns a published config snapshot (the programmatic export `{server, files}`, spec 2.9 and
 * 4.1) into a FolderModel, with the same parser the runtime boots with (folder/'s loadFolder).
 *
 * `files["config.yaml"]`, when present, is the config served (it is the folder as exported);
 * `server` must then describe the same config, or the snapshot is refused as inconsistent.
 * When `files` omits config.yaml it is rendered from `server` (as the legacy bundle does).
 * A snapshot for another server id is refused: a deploy token reads one server only, so a
 * different id means a misrouted or tampered answer.
 */
import { createHash } from 'node:crypto';
import { stringify } from 'yaml';
import { canonicalJson } from '../../core/canonical-json.js';
import { type FolderFiles, type FolderModel, folderInvalid, loadFolder } from '../../folder/index.js';
import { validate } from '../../schemas/validate.js';

export type SnapshotFolder = { ok: true; folder: FolderModel } | { ok: false; reason: string };

/** A digest of what a folder serves: two folders with the same digest serve the same thing. */
export function folderDigest(folder: FolderModel): string {
  return createHash('sha256').update(canonicalJson(folder)).digest('hex');
}

export function folderFromSnapshot(body: unknown, expectedServerId: string): SnapshotFolder {
  const checked = validate('export', body);
  if (!checked.ok) {
    const first = checked.errors[0];
    const more = checked.errors.length > 1 ? ` (+${checked.errors.length - 1} more)` : '';
    return {
      ok: false,
      reason: `the snapshot does not match {server, files}: ${first?.field || '/'} ${first?.message ?? ''}${more}`,
    };
  }
  const { server, files: given } = checked.value;
  if (server.server.id !== expectedServerId) {
    return {
      ok: false,
      reason: `the snapshot is for server "${server.server.id}", this runtime serves "${expectedServerId}"`,
    };
  }
  const files: FolderFiles = {};
  for (const [name, content] of Object.entries(given)) if (content !== undefined) files[name] = content;
  const hadConfig = files['config.yaml'] !== undefined;
  files['config.yaml'] ??= stringify(server);
  const loaded = loadFolder(files);
  if (!loaded.ok) {
    const error = folderInvalid(loaded.errors, "the snapshot's folder");
    const more = loaded.errors.length > 1 ? ` (+${loaded.errors.length - 1} more)` : '';
    return { ok: false, reason: `${error.describe().split('\n')[0]}${more}` };
  }
  if (hadConfig && canonicalJson(loaded.folder.config) !== canonicalJson(server)) {
    return { ok: false, reason: 'the snapshot\'s server does not match its files["config.yaml"]' };
  }
  if (loaded.folder.config.server.id !== expectedServerId) {
    return {
      ok: false,
      reason: `the snapshot's config.yaml is for server "${loaded.folder.config.server.id}", this runtime serves "${expectedServerId}"`,
    };
  }
  return { ok: true, folder: loaded.folder };
}
