/**
 * Build app: one folder's Hono app (runtime/app.ts) with the process's services and the caller's
 * tuning, on the port boot listened on. The single- and multi-folder entries build theirs here.
 */
import { createApp, type CreateAppOptions, type RuntimeApp } from '../app.js';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';
import type { ProcessServices } from './services.js';

/** What a caller of startRuntime(s) may tune per app (tests, benchmarks). */
export type AppTuning = Pick<
  CreateAppOptions,
  'fetch' | 'now' | 'sessionIdleMs' | 'maxSessions' | 'maxSessionsPerClient' | 'fastPath'
>;

export interface AppInputs {
  /** The variables of this folder (its own upstream credential). */
  env: RuntimeEnv;
  logger: Logger;
  services: ProcessServices;
  tuning: AppTuning;
}

export function buildApp(
  inputs: AppInputs,
  store: ConfigStore,
  listenPort: number,
  more: Partial<CreateAppOptions> = {},
): RuntimeApp {
  const { tuning } = inputs;
  return createApp({
    store,
    env: inputs.env,
    logger: inputs.logger,
    listenPort,
    ...(tuning.fetch ? { fetch: tuning.fetch } : {}),
    ...(tuning.now ? { now: tuning.now } : {}),
    ...(tuning.sessionIdleMs !== undefined ? { sessionIdleMs: tuning.sessionIdleMs } : {}),
    ...(tuning.maxSessions !== undefined ? { maxSessions: tuning.maxSessions } : {}),
    ...(tuning.fastPath !== undefined ? { fastPath: tuning.fastPath } : {}),
    ...(tuning.maxSessionsPerClient !== undefined
      ? { maxSessionsPerClient: tuning.maxSessionsPerClient }
      : {}),
    ...inputs.services.app,
    ...more,
  });
}
