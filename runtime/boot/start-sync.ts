/**
 * Start sync: with SVC_SYNC_URL and SVC_DEPLOY_TOKEN, the poller that follows the published
 * snapshot (runtime/sync/), and its health for /readyz: stale once no poll has reached the
 * control service for 3 intervals. A synced config is refused exactly as boot would refuse it.
 * SVC_SNAPSHOT_PUBLIC_KEY is read here (a key that cannot be read refuses the boot, sync or not).
 * With SVC_STATE_DIR, the last signed snapshot accepted is read before listening and recorded at
 * each new one (runtime/sync/sequence-file.ts), so a restart does not reopen the door to a rollback.
 * Created before the app (which reads its health) and started once the runtime listens.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { SyncHealth } from '../app.js';
import type { ConfigStore } from '../config-store.js';
import type { RuntimeEnv } from '../env.js';
import type { Logger } from '../logger.js';
import type { RuntimeMetrics } from '../metrics.js';
import { createSnapshotPoller, type SnapshotPoller } from '../sync/index.js';
import { openSequenceFile } from '../sync/sequence-file.js';
import { checkBootConfig, snapshotPublicKey } from './boot-checks.js';

export interface SyncStep {
  poller: SnapshotPoller;
  health(): SyncHealth;
}

export interface SyncStepOptions {
  env: RuntimeEnv;
  store: ConfigStore;
  logger: Logger;
  /** syncIntervalMs overrides SVC_SYNC_INTERVAL (tests); syncTimeoutMs, one request's timeout. */
  tuning: { syncIntervalMs?: number; syncTimeoutMs?: number };
  /** The app's metrics, once it exists. */
  metrics: () => RuntimeMetrics | undefined;
}

export async function createSyncStep(o: SyncStepOptions): Promise<SyncStep | undefined> {
  const { env, logger } = o;
  const publicKey = env.snapshotPublicKey ? await snapshotPublicKey(env.snapshotPublicKey) : undefined;
  if (!env.syncUrl || !env.deployToken) return undefined;
  const intervalMs = o.tuning.syncIntervalMs ?? env.syncIntervalSec * 1000;
  const timeoutMs = o.tuning.syncTimeoutMs;
  const serverId = o.store.current().serverId;
  // Only signed snapshots carry a sequence: without a key there is nothing to keep.
  const state = env.stateDir && publicKey ? await openSequenceFile(env.stateDir, serverId) : undefined;
  let lastOk = Date.now();
  let failures = 0;
  const poller = createSnapshotPoller({
    ...(publicKey ? { publicKey } : {}),
    runtimeId: env.runtimeId ?? `${hostname()}-${randomBytes(3).toString('hex')}`,
    syncUrl: env.syncUrl,
    deployToken: env.deployToken,
    serverId,
    ...(state?.last ? { lastAccepted: state.last } : {}),
    ...(state ? { persist: state.save } : {}),
    store: o.store,
    intervalMs,
    ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    logger,
    // A synced config is refused exactly as boot would refuse it (e.g. SVC_UPSTREAM_SECRET missing).
    check: (next) => checkBootConfig(next, env, logger),
    onOutcome: (outcome) => {
      if (outcome.kind === 'stopped') return;
      const ok = outcome.kind === 'updated' || outcome.kind === 'unchanged';
      if (ok) {
        lastOk = Date.now();
        failures = 0;
      } else failures++;
      o.metrics()?.sync(ok, Date.now());
    },
  });
  return {
    poller,
    health: () => ({
      ok: Date.now() - lastOk <= 3 * intervalMs,
      lastSuccess: new Date(lastOk).toISOString(),
      consecutiveFailures: failures,
    }),
  };
}
