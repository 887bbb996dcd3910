/** The control service (spec 3.1, 3.4, 4.1, 4.3, 5.3, 5.4): snapshots, deploy tokens, webhooks and import jobs. */
export { createControlApp, type ControlAppOptions } from './control-app.js';
export {
  type RunningControl,
  type StartControlOptions,
  openControlStore,
  startControl,
} from './start-control.js';
export { defaultControlDataDir } from './data-dir.js';
export { DEFAULT_KEEP_JOBS, parseKeepJobs } from './job-retention.js';
export { parseAllowPrivate, parseHostList } from './control-env.js';
export { ControlStore } from './store/control-store.js';
export { expiryFromDays, parseTrustProxy } from './tokens.js';
