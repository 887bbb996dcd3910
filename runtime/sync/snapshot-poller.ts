/**
 * The config sync poller (spec 3.4, 4.1, 5.4): asks the service for this server's published
 * snapshot right after boot ("catches up on the first poll") and then every interval, with
 * `Authorization: Bearer <deploy token>` and `If-None-Match: <last ETag>`.
 *
 * 304 → nothing changes. 200 with a valid snapshot that serves something new → swapped into
 * the store atomically (new sessions and stateless requests see it at once; open 2025-11-25
 * sessions keep theirs). 403 (token revoked, plan downgraded), other statuses, network errors,
 * timeouts, non-JSON, invalid snapshots, another server id, or a config the runtime could not
 * serve (check() throws, e.g. SVC_UPSTREAM_SECRET missing) → keep serving the last good
 * config, log why, retry at the next tick. The deploy token never appears in a log line.
 *
 * Ticks never overlap: the next poll is scheduled when the previous one has finished.
 */
import { SvcError } from '../../core/svc-error.js';
import type { FolderModel } from '../../folder/model.js';
import type { ConfigStore } from '../config-store.js';
import type { LoadedConfig } from '../loaded-config.js';
import type { Logger } from '../logger.js';
import { folderDigest, folderFromSnapshot } from './snapshot-folder.js';

export type SyncOutcome =
  | { kind: 'updated'; version: number; etag?: string }
  | { kind: 'unchanged'; status: 200 | 304 }
  | { kind: 'forbidden' }
  | { kind: 'failed'; reason: string; status?: number }
  | { kind: 'stopped' };

export interface SyncTimers {
  set(callback: () => void, ms: number): unknown;
  clear(handle: unknown): void;
}

export interface SnapshotPollerOptions {
  /** SVC_SYNC_URL: the service API origin (a trailing slash or path prefix is kept). */
  syncUrl: string;
  /** SVC_DEPLOY_TOKEN. */
  deployToken: string;
  /** The id of the server this runtime serves (from the folder it booted with). */
  serverId: string;
  store: ConfigStore;
  /** Delay between the end of one poll and the start of the next. */
  intervalMs: number;
  /** Per-request timeout (headers and body), default 15 s. */
  timeoutMs?: number;
  /** Largest snapshot body accepted, default 64 MiB. */
  maxBytes?: number;
  fetch?: typeof fetch;
  logger?: Logger;
  now?: () => number;
  timers?: SyncTimers;
  /** Throws to refuse a folder this runtime could not serve (the same checks as boot). */
  check?: (folder: FolderModel) => void;
  /** Told how each poll ended (metrics, readiness). */
  onOutcome?: (outcome: SyncOutcome) => void;
}

export interface SnapshotPoller {
  /** The snapshot URL polled (no credential in it). */
  readonly url: string;
  /** Polls now, then every interval, until stop(). */
  start(): void;
  /** One poll, outside the schedule (tests); waits for a poll already running instead of overlapping it. */
  pollNow(): Promise<SyncOutcome>;
  /** The ETag of the last snapshot accepted (or found identical). */
  etag(): string | undefined;
  /** Cancels the schedule and any request in flight; resolves when no poll is running. */
  stop(): Promise<void>;
}

const DEFAULT_TIMEOUT_MS = 15_000;
const DEFAULT_MAX_BYTES = 64 * 1024 * 1024;

export function snapshotUrl(syncUrl: string, serverId: string): string {
  return `${syncUrl.replace(/\/+$/, '')}/v1/servers/${encodeURIComponent(serverId)}/export/snapshot`;
}

const nodeTimers: SyncTimers = {
  set(callback, ms) {
    const handle = setTimeout(callback, ms);
    // A pending poll must not keep the process alive on its own.
    handle.unref?.();
    return handle;
  },
  clear: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

class PollFailure extends Error {
  constructor(
    readonly reason: string,
    readonly status?: number,
  ) {
    super(reason);
  }
}

async function readLimited(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    throw new PollFailure(`the snapshot is larger than ${maxBytes} bytes`, response.status);
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel();
      throw new PollFailure(`the snapshot is larger than ${maxBytes} bytes`, response.status);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function errorReason(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  if (error instanceof PollFailure) return error.reason;
  if (error instanceof SvcError) return error.message;
  const err = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `network error: ${err?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}

export function createSnapshotPoller(opts: SnapshotPollerOptions): SnapshotPoller {
  const url = snapshotUrl(opts.syncUrl, opts.serverId);
  const doFetch = opts.fetch ?? globalThis.fetch;
  const timers = opts.timers ?? nodeTimers;
  const now = opts.now ?? Date.now;
  const log: Logger['log'] = (level, event, fields) => opts.logger?.log(level, event, fields);
  const timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_BYTES;

  const digests = new WeakMap<LoadedConfig, string>();
  const digestOf = (config: LoadedConfig): string => {
    let digest = digests.get(config);
    if (digest === undefined) {
      digest = folderDigest(config.folder);
      digests.set(config, digest);
    }
    return digest;
  };

  let lastEtag: string | undefined;
  let stopped = false;
  let started = false;
  let timer: unknown;
  let running: Promise<SyncOutcome> | undefined;
  let inFlight: AbortController | undefined;

  const fail = (reason: string, status: number | undefined, ms: number): SyncOutcome => {
    log('warn', 'sync_failed', {
      reason,
      ...(status !== undefined ? { status } : {}),
      url,
      ms,
      keptVersion: opts.store.version(),
    });
    return { kind: 'failed', reason, ...(status !== undefined ? { status } : {}) };
  };

  async function pollOnce(): Promise<SyncOutcome> {
    if (stopped) return { kind: 'stopped' };
    const started = now();
    const controller = new AbortController();
    inFlight = controller;
    let timedOut = false;
    const timeout = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    try {
      const headers: Record<string, string> = {
        accept: 'application/json',
        authorization: `Bearer ${opts.deployToken}`,
      };
      if (lastEtag !== undefined) headers['if-none-match'] = lastEtag;
      // Redirects are not followed: the bearer token must go to SVC_SYNC_URL only.
      const response = await doFetch(url, {
        method: 'GET',
        headers,
        signal: controller.signal,
        redirect: 'manual',
      });
      const status = response.status;
      if (status === 304) {
        await response.body?.cancel();
        log('debug', 'sync_unchanged', { status, version: opts.store.version() });
        return { kind: 'unchanged', status: 304 };
      }
      if (status === 403) {
        await response.body?.cancel();
        log('warn', 'sync_forbidden', {
          message:
            'the service refused the deploy token (revoked, or the plan no longer allows export): keeping the current config',
          status,
          url,
          keptVersion: opts.store.version(),
        });
        return { kind: 'forbidden' };
      }
      if (status !== 200) {
        await response.body?.cancel();
        const what = status >= 300 && status < 400 ? 'a redirect (not followed)' : 'an unexpected status';
        return fail(`the service answered ${what}: ${status}`, status, now() - started);
      }
      const text = await readLimited(response, maxBytes);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch (error) {
        return fail(`the snapshot is not JSON: ${(error as Error).message}`, status, now() - started);
      }
      const snapshot = folderFromSnapshot(body, opts.serverId);
      if (!snapshot.ok) return fail(snapshot.reason, status, now() - started);
      const etag = response.headers.get('etag') ?? undefined;
      if (folderDigest(snapshot.folder) === digestOf(opts.store.current())) {
        lastEtag = etag;
        log('debug', 'sync_unchanged', { status, version: opts.store.version() });
        return { kind: 'unchanged', status: 200 };
      }
      try {
        opts.check?.(snapshot.folder);
      } catch (error) {
        const reason = error instanceof SvcError ? error.message : String(error);
        return fail(`the snapshot cannot be served: ${reason}`, status, now() - started);
      }
      if (stopped) return { kind: 'stopped' };
      const config = opts.store.swap(snapshot.folder);
      digests.set(config, folderDigest(snapshot.folder));
      lastEtag = etag;
      log('info', 'sync_updated', {
        version: config.version,
        tools: config.toolList.length,
        ...(etag !== undefined ? { etag } : {}),
        ms: now() - started,
      });
      return { kind: 'updated', version: config.version, ...(etag !== undefined ? { etag } : {}) };
    } catch (error) {
      if (stopped && !timedOut) return { kind: 'stopped' };
      const status = error instanceof PollFailure ? error.status : undefined;
      return fail(errorReason(error, timedOut, timeoutMs), status, now() - started);
    } finally {
      clearTimeout(timeout);
      if (inFlight === controller) inFlight = undefined;
    }
  }

  function pollNow(): Promise<SyncOutcome> {
    running ??= pollOnce()
      .then((outcome) => {
        opts.onOutcome?.(outcome);
        return outcome;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  }

  function tick(): void {
    timer = undefined;
    void pollNow().then(() => {
      if (!stopped) timer = timers.set(tick, opts.intervalMs);
    });
  }

  return {
    url,
    etag: () => lastEtag,
    pollNow,
    start() {
      if (started || stopped) return;
      started = true;
      log('info', 'sync_started', { url, intervalMs: opts.intervalMs });
      tick();
    },
    async stop() {
      stopped = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
      inFlight?.abort();
      await running?.catch(() => undefined);
    },
  };
}
