/** What createControlApp is given, and what its route groups share (route-context.ts). */
import type { SecretBox } from '../core/secret-box.js';
import type { ControlMetrics } from './control-metrics.js';
import type { GitRepository } from './git/git-repository.js';
import type { PublishedSnapshots } from './published-snapshot.js';
import type { SnapshotSigningKey } from './snapshot-signing-key.js';
import type { ControlStore, ServerRow } from './store/control-store.js';

export interface ControlAppOptions {
  store: ControlStore;
  snapshots: PublishedSnapshots;
  secrets: SecretBox;
  repository(server: Pick<ServerRow, 'repository'>): Promise<GitRepository>;
  /** Resolves a repository given at registration (relative paths against the service's cwd). */
  cwd: string;
  /** A job was queued: wake the worker. */
  onEnqueued?(): void;
  log?(event: string, fields: Record<string, unknown>): void;
  /** The clock (ms since the epoch) for token expiries and runtime fetch times; default Date.now. */
  now?: () => number;
  /** How long a status-page sign-in lasts (default 12 hours). */
  sessionTtlMs?: number;
  /**
   * The service runs behind a TLS-terminating proxy the operator trusts
   * (SVC_CONTROL_TRUST_PROXY=1): `X-Forwarded-Proto: https` then counts as https for the
   * cookies' `Secure` flag. Off by default, since any client can send that header.
   */
  trustProxy?: boolean;
  /** Signs every snapshot served (contracts/fleet.md); `<data>/snapshot-signing.pem`. */
  signingKey?: SnapshotSigningKey;
  /** Prometheus series (GET /metrics); absent: no /metrics route. */
  metrics?: ControlMetrics;
  /** SVC_METRICS_TOKEN: GET /metrics then needs it as a bearer token. */
  metricsToken?: string;
  /** SVC_PROMETHEUS_URL: the Prometheus scraping the runtimes, for the servers page's panel. */
  prometheusUrl?: string;
}
