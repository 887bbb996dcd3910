/**
 * Read env, several folders: each folder's upstream credential is its own. One process serving
 * several folders cannot hand one SVC_UPSTREAM_SECRET to every folder's API (each would receive
 * the others' key), so with several folders the credential of the folder whose server id is
 * `crm-eu` is SVC_UPSTREAM_SECRET_CRM_EU (and SVC_UPSTREAM_USER_CRM_EU), else the
 * SVC_UPSTREAM_SECRET (and SVC_UPSTREAM_USER) of that folder's own .env. The shared variables
 * are refused there, naming the per-folder ones.
 */
import { SvcError } from '../../core/svc-error.js';
import type { RuntimeEnv } from '../env.js';

export type Variables = Readonly<Record<string, string | undefined>>;

const SECRET = 'SVC_UPSTREAM_SECRET';
const USER = 'SVC_UPSTREAM_USER';

/** SVC_UPSTREAM_SECRET + server id `crm-eu` → SVC_UPSTREAM_SECRET_CRM_EU (ids have no `_`: one name per id). */
export function folderVariable(name: string, serverId: string): string {
  return `${name}_${serverId.toUpperCase().replace(/-/g, '_')}`;
}

const value = (v: string | undefined): string | undefined => {
  const trimmed = v?.trim();
  return trimmed ? trimmed : undefined;
};

/** Refuses SVC_UPSTREAM_SECRET / SVC_UPSTREAM_USER set for the whole process when several folders are served. */
export function refuseSharedCredential(env: RuntimeEnv): void {
  const shared = env.upstreamSecret ? SECRET : env.upstreamUser ? USER : undefined;
  if (!shared) return;
  throw new SvcError(
    'USAGE',
    `${shared} would go to every folder's API: with several folders, give each folder its own as ${shared}_<SERVER_ID> (the server id in capitals, - as _) or in the folder's .env`,
    { place: { field: shared } },
  );
}

/** The variables of one folder: the process's, with that folder's own upstream credential. */
export function folderEnv(
  env: RuntimeEnv,
  serverId: string,
  vars: Variables = {},
  dotEnv: Variables = {},
): RuntimeEnv {
  const secret = value(vars[folderVariable(SECRET, serverId)]) ?? value(dotEnv[SECRET]);
  const user = value(vars[folderVariable(USER, serverId)]) ?? value(dotEnv[USER]);
  const { upstreamSecret: _secret, upstreamUser: _user, ...rest } = env;
  return { ...rest, ...(secret ? { upstreamSecret: secret } : {}), ...(user ? { upstreamUser: user } : {}) };
}

/** A folder's missing credential, said with the names that hold it when several folders are served. */
export function perFolderError(error: unknown, serverId: string, dir: string): unknown {
  if (!(error instanceof SvcError) || error.code !== 'CONFIG_MISSING_ENV') return error;
  const field = error.place.field;
  if (field !== SECRET && field !== USER) return error;
  const own = folderVariable(field, serverId);
  return new SvcError(
    error.code,
    `${dir} (server ${serverId}): ${error.message.replace(field, own)}; set ${own}, or ${field} in ${dir}/.env`,
    { place: { file: `${dir}/config.yaml`, field: own }, cause: error },
  );
}
