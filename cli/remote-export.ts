/**
 * `svc export --remote <serverId>`: the published export of a server, as the control service
 * serves it (`GET /v1/servers/{serverId}/export`, workspace token).
 */
import { SvcError } from '../core/svc-error.js';
import type { FolderFiles } from '../folder/model.js';
import type { ControlClient } from './control-client.js';

export interface RemoteExport {
  server: unknown;
  files: FolderFiles;
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
  return { server: body.server, files: files as FolderFiles };
}
