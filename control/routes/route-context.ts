/** What the route groups share: the options, the log, the clock, the job queue and the runtime fetches. */
import type { ControlAppOptions } from '../control-app-options.js';
import type { ControlLog } from '../middleware/error-mapping.js';
import { HookResults } from '../middleware/request-metrics.js';
import { RuntimeFetches } from '../runtime-fetches.js';
import type { JobTrigger } from '../store/schema.js';

export interface RouteContext {
  options: ControlAppOptions;
  log: ControlLog;
  now: () => number;
  /** Queues an import job (deduplicated by delivery id) and wakes the worker. */
  enqueue(
    serverId: string,
    trigger: JobTrigger,
    deliveryId?: string,
  ): Promise<{ jobId: string; duplicate: boolean }>;
  runtimes: RuntimeFetches;
  hookResults: HookResults;
}

export function routeContext(options: ControlAppOptions): RouteContext {
  const log: ControlLog = options.log ?? (() => undefined);
  const now = options.now ?? Date.now;
  return {
    options,
    log,
    now,
    async enqueue(serverId, trigger, deliveryId) {
      const queued = await options.store.enqueueJob({
        serverId,
        trigger,
        ...(deliveryId ? { deliveryId } : {}),
      });
      if (!queued.duplicate) {
        log('import_queued', { jobId: queued.jobId, serverId, trigger });
        options.onEnqueued?.();
      }
      return queued;
    },
    runtimes: new RuntimeFetches(now),
    hookResults: new HookResults(),
  };
}
