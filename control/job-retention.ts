/**
 * How many import jobs the service keeps per server. Every job's record (progress, report) stays
 * in the database until pruned, and a busy server with webhooks on every merge would grow it
 * without end; the newest N finished jobs are enough for the status page and `svc import --remote`.
 */
import { SvcError } from '../core/svc-error.js';

export const DEFAULT_KEEP_JOBS = 200;

/** SVC_CONTROL_KEEP_JOBS / --keep-jobs: a whole number ≥ 1; absent or blank → the default. */
export function parseKeepJobs(text: string | undefined, field = 'SVC_CONTROL_KEEP_JOBS'): number {
  const value = text?.trim();
  if (!value) return DEFAULT_KEEP_JOBS;
  if (!/^\d{1,9}$/.test(value) || Number(value) < 1) {
    throw new SvcError('USAGE', `${field} must be a whole number of jobs (at least 1), not "${value}"`, {
      place: { field },
    });
  }
  return Number(value);
}
