/**
 * The control service's tables, as Kysely sees them. Times are ISO-8601 UTC strings in both
 * SQLite and PostgreSQL, so they compare as text the same way on either.
 */
import type { Generated } from 'kysely';

export type Plan = 'free' | 'paid';
export type JobStatus = 'Pending' | 'Processing' | 'Complete' | 'Failed';
export type JobTrigger = 'manual' | 'github' | 'gitlab' | 'generic';

export interface WorkspaceTable {
  id: string;
  plan: Plan;
  created_at: string;
}

export interface WorkspaceTokenTable {
  id: string;
  name: string;
  /** sha256 hex of the token; the token itself is never stored. */
  token_hash: string;
  created_at: string;
  last_used_at: string | null;
  /** After this time the token is refused; null: no expiry. */
  expires_at: string | null;
  revoked_at: string | null;
}

/**
 * A status-page sign-in: the cookie holds a random session id, stored here only as its sha256,
 * tied to the workspace token it was opened with (revoking the token ends its sessions).
 */
export interface SessionTable {
  id_hash: string;
  token_id: string;
  created_at: string;
  expires_at: string;
}

export interface ServerTable {
  /** The folder's server.id. */
  id: string;
  repository: string;
  branch: string;
  path: string;
  /** The webhook secret, sealed with the service key (see core/secret-box.ts). */
  webhook_secret_sealed: string;
  created_at: string;
}

export interface DeployTokenTable {
  id: string;
  server_id: string;
  name: string;
  token_hash: string;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}

export interface ImportJobTable {
  id: string;
  server_id: string;
  status: JobStatus;
  trigger: JobTrigger;
  /** Provider-prefixed delivery id ("github:<guid>"); unique, so a redelivery inserts nothing. */
  delivery_id: string | null;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  commit_sha: string | null;
  failed_step: string | null;
  error: string | null;
  summary: string | null;
  /** JSON: the checklist rows of the running or finished job. */
  progress: string | null;
  /** JSON: the import report of a finished job. */
  report: string | null;
  lease_owner: string | null;
  lease_until: string | null;
  attempts: Generated<number>;
}

/**
 * The credential an import job reads a server's *source* with (a private git repository or raw
 * URL its config.yaml names): `{username?, token}` as JSON, sealed like webhook secrets.
 */
export interface SourceCredentialTable {
  server_id: string;
  credential_sealed: string;
  updated_at: string;
}

export interface ControlDatabase {
  workspace: WorkspaceTable;
  workspace_tokens: WorkspaceTokenTable;
  sessions: SessionTable;
  servers: ServerTable;
  deploy_tokens: DeployTokenTable;
  import_jobs: ImportJobTable;
  source_credentials: SourceCredentialTable;
}
