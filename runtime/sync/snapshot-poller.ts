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
 * Signed snapshots (SVC_SNAPSHOT_PUBLIC_KEY, core/snapshot-signature.ts): with a public key, a
 * snapshot is served only when its Ed25519 signature verifies over this server id, the commit,
 * the sequence and the exact body, and its sequence is not below the last one accepted; an
 * unsigned, tampered or rolled-back snapshot is refused like any other bad answer (logged, the
 * last good config keeps serving). The last sequence is kept in memory, and with SVC_STATE_DIR
 * (lastAccepted / persist, runtime/sync/sequence-file.ts) recorded before a snapshot is served, so
 * a restarted runtime still refuses an older one; without it a restarted runtime accepts any
 * validly signed snapshot again (it boots from its folder, then catches up).
 *
 * Ticks never overlap: the next poll is scheduled when the previous one has finished.
 */
import type { KeyObject } from 'node:crypto';
import {
  RUNTIME_ID_HEADER,
  SNAPSHOT_COMMIT_HEADER,
  SNAPSHOT_SEQUENCE_HEADER,
  SNAPSHOT_SIGNATURE_HEADER,
  verifySnapshot,
} from '../../core/snapshot-signature.js';
import { readWebStreamCapped } from '../../core/read-web-stream-capped.js';
import { SvcError } from '../../core/svc-error.js';
import type { FolderModel } from '../../folder/model.js';
import type { ConfigStore } from '../config-store.js';
import type { LoadedConfig } from '../loaded-config.js';
import type { Logger } from '../logger.js';
import type { AcceptedSnapshot } from './sequence-file.js';
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
  /** SVC_SNAPSHOT_PUBLIC_KEY: serve only snapshots signed by the control service's key. */
  publicKey?: KeyObject;
  /** Sent as Svc-Runtime-Id, so the control service can list which runtime fetched which commit. */
  runtimeId?: string;
  /** Told how each poll ended (metrics, readiness). */
  onOutcome?: (outcome: SyncOutcome) => void;
  /** The signed snapshot accepted before this process started (SVC_STATE_DIR): an older one is refused. */
  lastAccepted?: AcceptedSnapshot;
  /** Records a signed snapshot before it is served (SVC_STATE_DIR); a failure is logged, the poll goes on. */
  persist?: (accepted: AcceptedSnapshot) => Promise<void>;
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
  /** True once the first poll has finished, whatever its outcome (/readyz waits for it). */
  settled(): boolean;
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
  const bytes = await readWebStreamCapped(response.body, {
    maxBytes,
    place: 'the snapshot',
    declaredLength: response.headers.get('content-length'),
    tooLarge: () => new PollFailure(`the snapshot is larger than ${maxBytes} bytes`, response.status),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/** The most of an error body read, and of its message kept, for a log line. */
const MAX_ERROR_BODY_BYTES = 16 * 1024;
const MAX_ERROR_MESSAGE = 500;

/**
 * The service's own reason for a refusal, from its `{ "error": { "code", "message" } }` body
 * ("NOT_PUBLISHED: the server pets is not published on main"), or undefined when the body is
 * not that (another server, a proxy's page).
 */
async function serviceReason(response: Response): Promise<string | undefined> {
  let text: string;
  try {
    text = await readLimited(response, MAX_ERROR_BODY_BYTES);
  } catch {
    return undefined;
  }
  try {
    const error = (JSON.parse(text) as { error?: { code?: unknown; message?: unknown } })?.error;
    const code = typeof error?.code === 'string' ? error.code : undefined;
    const message = typeof error?.message === 'string' ? error.message : undefined;
    if (!code && !message) return undefined;
    const said = [code, message]
      .filter(Boolean)
      .join(': ')
      .replace(/[\u0000-\u001f\u007f]+/g, ' ');
    return said.length > MAX_ERROR_MESSAGE ? `${said.slice(0, MAX_ERROR_MESSAGE)}…` : said;
  } catch {
    return undefined;
  }
}

function errorReason(error: unknown, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `no answer within ${timeoutMs} ms`;
  if (error instanceof PollFailure) return error.reason;
  if (error instanceof SvcError) return error.message;
  const err = error as { message?: string; cause?: { code?: string; message?: string } };
  const cause = err?.cause?.code ?? err?.cause?.message;
  return `network error: ${err?.message ?? String(error)}${cause ? ` (${cause})` : ''}`;
}

/** What one poller carries from poll to poll, and what every step of a poll reads. */
interface PollContext {
  opts: SnapshotPollerOptions;
  url: string;
  log: Logger['log'];
  now: () => number;
  /** The folder digest of a served config, computed once per config. */
  digestOf(config: LoadedConfig): string;
  lastEtag: string | undefined;
  /** The last signed snapshot accepted (sequence 0: none). */
  last: AcceptedSnapshot;
  stopped: boolean;
}

/** One poll's failure: logged with the kept version, and the outcome to report. */
function failure(ctx: PollContext, reason: string, status: number | undefined, started: number): SyncOutcome {
  ctx.log('warn', 'sync_failed', {
    reason,
    ...(status !== undefined ? { status } : {}),
    url: ctx.url,
    ms: ctx.now() - started,
    keptVersion: ctx.opts.store.version(),
  });
  return { kind: 'failed', reason, ...(status !== undefined ? { status } : {}) };
}

/** The GET of the snapshot, conditional on the last ETag. */
function requestSnapshot(ctx: PollContext, signal: AbortSignal): Promise<Response> {
  const { opts } = ctx;
  const headers: Record<string, string> = {
    accept: 'application/json',
    authorization: `Bearer ${opts.deployToken}`,
  };
  if (ctx.lastEtag !== undefined) headers['if-none-match'] = ctx.lastEtag;
  if (opts.runtimeId) headers[RUNTIME_ID_HEADER] = opts.runtimeId;
  // Redirects are not followed: the bearer token must go to SVC_SYNC_URL only.
  return (opts.fetch ?? globalThis.fetch)(ctx.url, { method: 'GET', headers, signal, redirect: 'manual' });
}

/** Every answer but 200: nothing to serve (304 unchanged; 403, a redirect or an error: kept). */
async function notASnapshot(ctx: PollContext, response: Response, started: number): Promise<SyncOutcome> {
  const { status } = response;
  const version = ctx.opts.store.version();
  if (status === 304) {
    await response.body?.cancel();
    ctx.log('debug', 'sync_unchanged', { status, version });
    return { kind: 'unchanged', status: 304 };
  }
  if (status === 403) {
    const said = await serviceReason(response);
    ctx.log('warn', 'sync_forbidden', {
      message:
        'the service refused the deploy token (revoked, or the plan no longer allows export): keeping the current config',
      ...(said ? { reason: said } : {}),
      status,
      url: ctx.url,
      keptVersion: version,
    });
    return { kind: 'forbidden' };
  }
  if (status >= 300 && status < 400) {
    await response.body?.cancel();
    return failure(ctx, `the service answered a redirect (not followed): ${status}`, status, started);
  }
  // The service says why (404 NOT_PUBLISHED, 401 UNAUTHORIZED, …): that is the reason to log.
  const said = await serviceReason(response);
  const reason = said
    ? `the service answered ${status} ${said}`
    : `the service answered an unexpected status: ${status}`;
  return failure(ctx, reason, status, started);
}

/**
 * With SVC_SNAPSHOT_PUBLIC_KEY: the snapshot's signed sequence and commit, or why it is refused
 * (unsigned, not verifying, or older than the last one accepted). Without a key: no sequence.
 */
function verifiedSequence(
  ctx: PollContext,
  headers: Headers,
  text: string,
): { accepted?: AcceptedSnapshot } | { refused: string } {
  const { publicKey, serverId } = ctx.opts;
  if (!publicKey) return {};
  const commit = headers.get(SNAPSHOT_COMMIT_HEADER) ?? undefined;
  const signature = headers.get(SNAPSHOT_SIGNATURE_HEADER);
  const sequenceText = headers.get(SNAPSHOT_SEQUENCE_HEADER) ?? '';
  if (!signature || !commit || !/^\d{1,16}$/.test(sequenceText))
    return { refused: 'the snapshot is not signed, and SVC_SNAPSHOT_PUBLIC_KEY requires it' };
  const sequence = Number(sequenceText);
  if (!verifySnapshot(publicKey, { serverId, commit, sequence, body: text }, signature))
    return {
      refused:
        "the snapshot's signature does not verify under SVC_SNAPSHOT_PUBLIC_KEY (altered, or signed by another key)",
    };
  if (sequence < ctx.last.sequence)
    return {
      refused: `the snapshot is older (sequence ${sequence}, commit ${commit.slice(0, 12)}) than one already served (sequence ${ctx.last.sequence}): refused as a rollback`,
    };
  return { accepted: { sequence, commit } };
}

/** Remembers a signed snapshot as accepted: in memory, and through persist (SVC_STATE_DIR) before it is served. */
async function remember(ctx: PollContext, accepted: AcceptedSnapshot | undefined): Promise<void> {
  if (!accepted || accepted.sequence <= ctx.last.sequence) return;
  ctx.last = accepted;
  try {
    await ctx.opts.persist?.(accepted);
  } catch (error) {
    ctx.log('warn', 'sync_state_unsaved', {
      message: `the accepted snapshot sequence could not be recorded in SVC_STATE_DIR (rollback protection holds until a restart): ${(error as Error).message}`,
    });
  }
}

/** A 200: verified, parsed, compared with what is served, checked as boot would, then swapped in. */
async function takeSnapshot(ctx: PollContext, response: Response, started: number): Promise<SyncOutcome> {
  const { opts, log } = ctx;
  const { status, headers } = response;
  const text = await readLimited(response, opts.maxBytes ?? DEFAULT_MAX_BYTES);
  const verified = verifiedSequence(ctx, headers, text);
  if ('refused' in verified) return failure(ctx, verified.refused, status, started);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    return failure(ctx, `the snapshot is not JSON: ${(error as Error).message}`, status, started);
  }
  const snapshot = folderFromSnapshot(body, opts.serverId);
  if (!snapshot.ok) return failure(ctx, snapshot.reason, status, started);
  const etag = headers.get('etag') ?? undefined;
  if (folderDigest(snapshot.folder) === ctx.digestOf(opts.store.current())) {
    ctx.lastEtag = etag;
    await remember(ctx, verified.accepted);
    log('debug', 'sync_unchanged', { status, version: opts.store.version() });
    return { kind: 'unchanged', status: 200 };
  }
  try {
    opts.check?.(snapshot.folder);
  } catch (error) {
    const reason = error instanceof SvcError ? error.message : String(error);
    return failure(ctx, `the snapshot cannot be served: ${reason}`, status, started);
  }
  await remember(ctx, verified.accepted);
  if (ctx.stopped) return { kind: 'stopped' };
  // The control service names the commit the snapshot was exported at.
  const commitHeader = headers.get(SNAPSHOT_COMMIT_HEADER) ?? undefined;
  const commit = commitHeader && /^[0-9a-f]{40,64}$/.test(commitHeader) ? commitHeader : undefined;
  const config = opts.store.swap(snapshot.folder, commit ? { commit } : {});
  ctx.lastEtag = etag;
  const withEtag = etag !== undefined ? { etag } : {};
  log('info', 'sync_updated', {
    version: config.version,
    tools: config.toolList.length,
    ...withEtag,
    ms: ctx.now() - started,
  });
  return { kind: 'updated', version: config.version, ...withEtag };
}

/** One poll, with its timeout; the controller lets stop() cancel it. */
async function pollOnce(ctx: PollContext, controller: AbortController): Promise<SyncOutcome> {
  if (ctx.stopped) return { kind: 'stopped' };
  const started = ctx.now();
  const timeoutMs = ctx.opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  let timedOut = false;
  const timeout = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  try {
    const response = await requestSnapshot(ctx, controller.signal);
    if (response.status !== 200) return await notASnapshot(ctx, response, started);
    return await takeSnapshot(ctx, response, started);
  } catch (error) {
    if (ctx.stopped && !timedOut) return { kind: 'stopped' };
    const status = error instanceof PollFailure ? error.status : undefined;
    return failure(ctx, errorReason(error, timedOut, timeoutMs), status, started);
  } finally {
    clearTimeout(timeout);
  }
}

function pollContext(opts: SnapshotPollerOptions): PollContext {
  const digests = new WeakMap<LoadedConfig, string>();
  return {
    opts,
    url: snapshotUrl(opts.syncUrl, opts.serverId),
    log: (level, event, fields) => opts.logger?.log(level, event, fields),
    now: opts.now ?? Date.now,
    digestOf(config) {
      let digest = digests.get(config);
      if (digest === undefined) {
        digest = folderDigest(config.folder);
        digests.set(config, digest);
      }
      return digest;
    },
    lastEtag: undefined,
    last: opts.lastAccepted ?? { sequence: 0, commit: '' },
    stopped: false,
  };
}

export function createSnapshotPoller(opts: SnapshotPollerOptions): SnapshotPoller {
  const ctx = pollContext(opts);
  const timers = opts.timers ?? nodeTimers;
  let started = false;
  let settled = false;
  let timer: unknown;
  let running: Promise<SyncOutcome> | undefined;
  let inFlight: AbortController | undefined;

  function pollNow(): Promise<SyncOutcome> {
    if (running) return running;
    const controller = new AbortController();
    inFlight = controller;
    running = pollOnce(ctx, controller)
      .then((outcome) => {
        opts.onOutcome?.(outcome);
        return outcome;
      })
      .finally(() => {
        if (inFlight === controller) inFlight = undefined;
        running = undefined;
        settled = true;
      });
    return running;
  }

  function tick(): void {
    timer = undefined;
    void pollNow().then(() => {
      if (!ctx.stopped) timer = timers.set(tick, opts.intervalMs);
    });
  }

  return {
    url: ctx.url,
    etag: () => ctx.lastEtag,
    settled: () => settled,
    pollNow,
    start() {
      if (started || ctx.stopped) return;
      started = true;
      ctx.log('info', 'sync_started', { url: ctx.url, intervalMs: opts.intervalMs });
      tick();
    },
    async stop() {
      ctx.stopped = true;
      if (timer !== undefined) timers.clear(timer);
      timer = undefined;
      inFlight?.abort();
      await running?.catch(() => undefined);
    },
  };
}
