/**
 * Prometheus metrics of the control service (contracts/operations.md), on a Registry of its
 * own: import jobs by status, snapshot polls by HTTP status, webhook deliveries by source and
 * result. GET /metrics renders them (SVC_METRICS_TOKEN as a bearer token when set).
 */
import { Counter, Registry } from 'prom-client';

export interface ControlMetrics {
  readonly registry: Registry;
  /** queued, or the status a job finished with (Complete, Failed, …). */
  job(status: string): void;
  snapshotPoll(status: number): void;
  /** source: github, gitlab, generic; result: queued, duplicate, ignored, bad_signature, invalid, error. */
  webhook(source: string, result: string): void;
}

export function createControlMetrics(): ControlMetrics {
  const registry = new Registry();
  const jobs = new Counter({
    name: 'svc_control_jobs_total',
    help: 'Import jobs queued, and finished by status.',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const polls = new Counter({
    name: 'svc_control_snapshot_polls_total',
    help: 'Snapshot requests from runtimes by HTTP status (200 new snapshot, 304 unchanged, 401/403 refused).',
    labelNames: ['status'] as const,
    registers: [registry],
  });
  const hooks = new Counter({
    name: 'svc_control_webhook_deliveries_total',
    help: 'Webhook deliveries by source and result.',
    labelNames: ['source', 'result'] as const,
    registers: [registry],
  });
  return {
    registry,
    job: (status) => jobs.inc({ status }),
    snapshotPoll: (status) => polls.inc({ status: String(status) }),
    webhook: (source, result) => hooks.inc({ source, result }),
  };
}
