/** The API's JSON shapes of store rows: jobs, workspace tokens, deploy tokens (never a token value). */
import type { DeployTokenInfo, JobRow, WorkspaceTokenInfo } from '../store/control-store.js';

export function jobJson(job: JobRow) {
  return {
    jobId: job.id,
    status: job.status,
    trigger: job.trigger,
    createdAt: job.created_at,
    startedAt: job.started_at,
    finishedAt: job.finished_at,
    ...(job.commit_sha ? { commit: job.commit_sha } : {}),
    ...(job.failed_step ? { failedStep: job.failed_step } : {}),
    ...(job.error ? { error: job.error } : {}),
    ...(job.summary ? { summary: job.summary } : {}),
    ...(job.progress ? { progress: JSON.parse(job.progress) as unknown } : {}),
  };
}

export function workspaceTokenJson(t: WorkspaceTokenInfo) {
  return {
    id: t.id,
    name: t.name,
    createdAt: t.created_at,
    lastUsedAt: t.last_used_at,
    expiresAt: t.expires_at,
    revokedAt: t.revoked_at,
  };
}

export function deployTokenJson(t: DeployTokenInfo) {
  return {
    id: t.id,
    serverId: t.server_id,
    name: t.name,
    createdAt: t.created_at,
    lastUsedAt: t.last_used_at,
    revokedAt: t.revoked_at,
  };
}
