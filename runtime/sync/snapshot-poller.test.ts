import { beforeAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../core/svc-error.js';
import { type FolderFiles, loadFolder, readFolder } from '../../folder/index.js';
import type { FolderModel } from '../../folder/model.js';
import { exportFolder } from '../../generator/render/index.js';
import type { SvcExport } from '../../schemas/types.js';
import { type ConfigStore, createConfigStore } from '../config-store.js';
import { memoryLogger } from '../logger.js';
import { createSnapshotPoller, type SnapshotPollerOptions, snapshotUrl } from './snapshot-poller.js';

const TOKEN = 'dpl-unit-3c9e71f0a2b4d8e6';
let v1: SvcExport;
let v2: SvcExport;
let boot: FolderModel;

beforeAll(async () => {
  const files: FolderFiles = await readFolder('fixtures/runtime/basic');
  v1 = exportFolder(files);
  v2 = exportFolder({
    ...files,
    'Tools/synced.yaml': files['Tools/echo_get.yaml']!.replace('name: echo_get', 'name: synced_tool'),
  });
  const loaded = loadFolder(files);
  if (!loaded.ok) throw new Error('fixture does not load');
  boot = loaded.folder;
});

interface Seen {
  url: string;
  headers: Headers;
  redirect: RequestRedirect | undefined;
}

/** A scripted stand-in for the service: each call answers with the next response (or throws). */
function service(...answers: (Response | Error | 'hang')[]) {
  const seen: Seen[] = [];
  const fetch: typeof globalThis.fetch = (async (input: string | URL | Request, init?: RequestInit) => {
    seen.push({ url: String(input), headers: new Headers(init?.headers), redirect: init?.redirect });
    const next = answers.shift();
    if (next === undefined) throw new Error('no scripted answer left');
    if (next === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(new DOMException('aborted', 'AbortError')));
      });
    }
    if (next instanceof Error) throw next;
    return next;
  }) as typeof globalThis.fetch;
  return { fetch, seen };
}

function json(body: unknown, etag?: string, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...(etag ? { etag } : {}) },
  });
}

function setup(fetch: typeof globalThis.fetch, extra: Partial<SnapshotPollerOptions> = {}) {
  const store: ConfigStore = createConfigStore(boot);
  const logger = memoryLogger();
  const poller = createSnapshotPoller({
    syncUrl: 'https://control.example.test/',
    deployToken: TOKEN,
    serverId: 'echo-api',
    store,
    intervalMs: 60_000,
    fetch,
    logger,
    ...extra,
  });
  const events = () => logger.records.map((r) => r.event);
  return { store, logger, poller, events };
}

const toolNames = (store: ConfigStore) => store.current().toolList.map((t) => t.name);

describe('snapshotUrl', () => {
  it('is the spec 4.1 path under SVC_SYNC_URL', () => {
    expect(snapshotUrl('https://c.example.test', 'echo-api')).toBe(
      'https://c.example.test/v1/servers/echo-api/export/snapshot',
    );
    expect(snapshotUrl('https://c.example.test/base//', 'a b')).toBe(
      'https://c.example.test/base/v1/servers/a%20b/export/snapshot',
    );
  });
});

describe('createSnapshotPoller', () => {
  it('sends the deploy token and the last ETag; identical snapshot and 304 change nothing', async () => {
    const svc = service(json(v1, '"v1"'), new Response(null, { status: 304 }));
    const { store, poller, events } = setup(svc.fetch);
    expect(await poller.pollNow()).toEqual({ kind: 'unchanged', status: 200 });
    expect(svc.seen[0]!.url).toBe('https://control.example.test/v1/servers/echo-api/export/snapshot');
    expect(svc.seen[0]!.headers.get('authorization')).toBe(`Bearer ${TOKEN}`);
    expect(svc.seen[0]!.headers.has('if-none-match')).toBe(false);
    expect(svc.seen[0]!.redirect).toBe('manual');
    expect(poller.etag()).toBe('"v1"');
    expect(await poller.pollNow()).toEqual({ kind: 'unchanged', status: 304 });
    expect(svc.seen[1]!.headers.get('if-none-match')).toBe('"v1"');
    expect(store.version()).toBe(1);
    expect(events()).not.toContain('sync_updated');
  });

  it('swaps in a changed snapshot and remembers its ETag', async () => {
    const svc = service(json(v2, '"v2"'), new Response(null, { status: 304 }));
    const { store, poller, logger } = setup(svc.fetch);
    const before = store.current();
    expect(await poller.pollNow()).toEqual({ kind: 'updated', version: 2, etag: '"v2"' });
    expect(store.version()).toBe(2);
    expect(toolNames(store)).toContain('synced_tool');
    expect(before.toolList.map((t) => t.name)).not.toContain('synced_tool');
    const updated = logger.records.find((r) => r.event === 'sync_updated');
    expect(updated).toMatchObject({ level: 'info', version: 2, etag: '"v2"' });
    await poller.pollNow();
    expect(svc.seen[1]!.headers.get('if-none-match')).toBe('"v2"');
    expect(store.version()).toBe(2);
  });

  it('keeps serving on 403 and takes the next good snapshot', async () => {
    const svc = service(new Response('revoked', { status: 403 }), json(v2, '"v2"'));
    const { store, poller, logger } = setup(svc.fetch);
    expect(await poller.pollNow()).toEqual({ kind: 'forbidden' });
    expect(logger.records.at(-1)).toMatchObject({ level: 'warn', event: 'sync_forbidden', keptVersion: 1 });
    expect(store.version()).toBe(1);
    expect((await poller.pollNow()).kind).toBe('updated');
  });

  it('logs the reason the service gives for a 403', async () => {
    const said = { error: { code: 'PLAN_REQUIRED', message: 'export and sync need the paid plan' } };
    const { poller, logger } = setup(service(json(said, undefined, 403)).fetch);
    expect(await poller.pollNow()).toEqual({ kind: 'forbidden' });
    expect(logger.records.at(-1)).toMatchObject({
      event: 'sync_forbidden',
      reason: 'PLAN_REQUIRED: export and sync need the paid plan',
    });
  });

  const failures: [string, () => Response | Error | 'hang', RegExp][] = [
    [
      'network error',
      () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }),
      /ECONNREFUSED/,
    ],
    ['server error', () => new Response('oops', { status: 500 }), /unexpected status: 500/],
    [
      'an unpublished server (the reason the service gives)',
      () =>
        json(
          { error: { code: 'NOT_PUBLISHED', message: 'the server echo-api is not published on main' } },
          undefined,
          404,
        ),
      /^the service answered 404 NOT_PUBLISHED: the server echo-api is not published on main$/,
    ],
    [
      'redirect',
      () => new Response(null, { status: 302, headers: { location: 'https://evil.example.test/' } }),
      /redirect \(not followed\): 302/,
    ],
    ['non-JSON', () => new Response('<html>', { status: 200 }), /not JSON/],
    ['invalid snapshot', () => json({ server: {}, files: {} }), /does not match \{server, files\}/],
    [
      'another server',
      () => {
        const other = structuredClone(v2);
        other.server.server.id = 'other';
        return json(other);
      },
      /server "other"/,
    ],
    ['timeout', () => 'hang', /no answer within 30 ms/],
  ];
  it.each(failures)(
    'keeps the last good config on %s and logs why, never the token',
    async (_n, answer, reason) => {
      const svc = service(answer());
      const { store, poller, logger } = setup(svc.fetch, { timeoutMs: 30 });
      const outcome = await poller.pollNow();
      expect(outcome.kind).toBe('failed');
      expect(outcome.kind === 'failed' && outcome.reason).toMatch(reason);
      expect(store.version()).toBe(1);
      expect(logger.records.at(-1)).toMatchObject({ level: 'warn', event: 'sync_failed', keptVersion: 1 });
      expect(logger.lines.join('')).not.toContain(TOKEN);
      expect(poller.etag()).toBeUndefined();
    },
  );

  it('refuses an oversized snapshot', async () => {
    const svc = service(json(v2));
    const { store, poller } = setup(svc.fetch, { maxBytes: 1000 });
    const outcome = await poller.pollNow();
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(/larger than 1000 bytes/);
    expect(store.version()).toBe(1);
  });

  it('refuses a snapshot the runtime could not serve (check throws) and keeps its ETag unset', async () => {
    const svc = service(json(v2, '"v2"'), json(v2, '"v2"'));
    const { store, poller } = setup(svc.fetch, {
      check: () => {
        throw new SvcError('CONFIG_MISSING_ENV', 'SVC_UPSTREAM_SECRET is not set');
      },
    });
    const outcome = await poller.pollNow();
    expect(outcome.kind === 'failed' && outcome.reason).toMatch(
      /cannot be served: SVC_UPSTREAM_SECRET is not set/,
    );
    expect(store.version()).toBe(1);
    await poller.pollNow();
    // Not remembered: the service keeps answering 200 until the config can be served.
    expect(svc.seen[1]!.headers.has('if-none-match')).toBe(false);
  });

  it('polls at once on start, then once per interval, never overlapping, and stops cleanly', async () => {
    const pending: { cb: () => void; ms: number }[] = [];
    const timers = {
      set: (cb: () => void, ms: number) => {
        pending.push({ cb, ms });
        return pending.length;
      },
      clear: (handle: unknown) => {
        pending[(handle as number) - 1] = { cb: () => {}, ms: -1 };
      },
    };
    const svc = service(json(v1, '"v1"'), new Response(null, { status: 304 }), 'hang');
    const { poller, events } = setup(svc.fetch, { timers, intervalMs: 5000, timeoutMs: 60_000 });
    poller.start();
    poller.start();
    expect(svc.seen).toHaveLength(1);
    await poller.pollNow(); // joins the running poll instead of starting another
    expect(svc.seen).toHaveLength(1);
    await new Promise((r) => setTimeout(r, 0));
    expect(pending).toHaveLength(1);
    expect(pending[0]!.ms).toBe(5000);
    pending[0]!.cb();
    await new Promise((r) => setTimeout(r, 0));
    expect(svc.seen).toHaveLength(2);
    expect(pending).toHaveLength(2);
    pending[1]!.cb(); // third poll hangs until stop() aborts it
    expect(svc.seen).toHaveLength(3);
    const t0 = Date.now();
    await poller.stop();
    expect(Date.now() - t0).toBeLessThan(1000);
    await new Promise((r) => setTimeout(r, 0));
    expect(pending).toHaveLength(2);
    expect(await poller.pollNow()).toEqual({ kind: 'stopped' });
    expect(events()).toContain('sync_started');
    expect(events()).not.toContain('sync_failed');
  });
});
