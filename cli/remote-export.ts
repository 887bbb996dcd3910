/**
 * `svc export --remote <serverId>`: the published export of a server, as the control service
 * serves it (`GET /v1/servers/{serverId}/export`, workspace token).
 */
import { SvcError } from '../core/svc-error.js';
import { isManagedPath, unsafePathReason } from '../folder/folder-paths.js';
import { BOOKKEEPING_DIR, type FolderFiles } from '../folder/model.js';
import type { ControlClient } from './control-client.js';

export interface RemoteExport {
  server: unknown;
  files: FolderFiles;
}

/**
 * A path an export may hold: the folder's `.gitignore`, a managed top-level file, `Tools/<name>.yaml` or `Tools/openapi.json`,
 * or a file under a content directory; no hidden segment (a `Docs/.git/config` would make a
 * repository of Docs/), no bookkeeping.
 */
function exportable(path: string): boolean {
  // The folder's own ignore rules (`.env` stays out of git): plain patterns, nothing git runs.
  if (path === '.gitignore') return true;
  if (!isManagedPath(path) || path.startsWith(`${BOOKKEEPING_DIR}/`)) return false;
  const segments = path.split('/');
  if (segments.length === 1) return true;
  if (segments.some((s) => s.startsWith('.'))) return false;
  if (segments[0] === 'Tools') return segments.length === 2 && /\.(yaml|json)$/.test(path);
  return true;
}

export async function fetchRemoteExport(client: ControlClient, serverId: string): Promise<RemoteExport> {
  const route = `/v1/servers/${encodeURIComponent(serverId)}/export`;
  const body = (await client.request('GET', route)) as {
    server?: unknown;
    files?: unknown;
  };
  const files = body.files;
  if (
    typeof body.server !== 'object' ||
    body.server === null ||
    typeof files !== 'object' ||
    files === null ||
    Object.values(files).some((text) => typeof text !== 'string')
  ) {
    throw new SvcError(
      'CONTROL_REFUSED',
      'the control service answered something other than {server, files}',
      {
        place: { url: `${client.url}${route}` },
      },
    );
  }
  // The answer names the paths --out writes: only what an export holds (the folder contract minus
  // .svc/), never `.git/config` or a path climbing out of the folder.
  for (const path of Object.keys(files)) {
    const unsafe = unsafePathReason(path);
    if (unsafe || !exportable(path)) {
      throw new SvcError(
        'CONTROL_REFUSED',
        `the control service's export holds "${path}", which is not a file an export may contain${unsafe ? ` (${unsafe})` : ''}; nothing was written`,
        { place: { url: `${client.url}${route}`, file: path } },
      );
    }
  }
  return { server: body.server, files: files as FolderFiles };
}
