/**
 * The control API through `app.request()`: no port, no worker, no git repository. One clock,
 * moved by the test, drives both the app and the store, so a token's expiry is checked by
 * moving time instead of waiting or back-dating. (The real-server runs are in test/control-*.)
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { secretBox } from '../core/secret-box.js';
import { createControlApp } from './control-app.js';
import type { PublishedSnapshots } from './published-snapshot.js';
import { ControlStore } from './store/control-store.js';
import { openDatabase } from './store/open-database.js';

const DAY_MS = 24 * 3600_000;
const REPOSITORY = '/repositories/pets.git';

let dir: string;
let store: ControlStore;
let app: ReturnType<typeof createControlApp>;
let pat: string;
let secret: string;
let clock = Date.parse('2026-03-01T12:00:00.000Z');
const now = () => clock;

const api = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  const token = init.token ?? pat;
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return app.request(`http://control.test${path}`, { ...init, headers });
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'svc-control-app-'));
  const opened = await openDatabase({ dataDir: dir });
  store = new ControlStore({ db: opened.db, kind: opened.kind, now });
  const secrets = secretBox(Buffer.alloc(32, 7));
  app = createControlApp({
    store,
    snapshots: {} as PublishedSnapshots,
    secrets,
    repository: () => Promise.reject(new Error('no repositories here')),
    cwd: dir,
    now,
  });
  pat = (await store.createWorkspaceToken('ci')).token;
  secret = `whsec_${Buffer.from('the pets server webhook secret').toString('base64')}`;
  await store.addServer({
    id: 'pets',
    repository: REPOSITORY,
    branch: 'main',
    path: 'mcp/pets',
    webhook_secret_sealed: secrets.seal(secret),
  });
});

afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('workspace tokens on the app clock', () => {
  it('expire when the clock passes expiresInDays, are listed without their value, and revoke', async () => {
    const made = await api('/v1/workspace/tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'temp', expiresInDays: 1 }),
    });
    expect(made.status).toBe(201);
    const temp = (await made.json()) as { id: string; token: string; expiresAt: string };
    expect(temp.expiresAt).toBe(new Date(clock + DAY_MS).toISOString());
    const list = (await (await api('/v1/workspace/tokens')).json()) as Record<string, unknown>[];
    expect(JSON.stringify(list)).not.toContain(temp.token);
    expect(list.find((t) => t.id === temp.id)).toMatchObject({ name: 'temp', expiresAt: temp.expiresAt });

    clock += DAY_MS - 1;
    expect((await api('/v1/servers/pets/imports', { token: temp.token })).status).toBe(200);
    clock += 1;
    expect((await api('/v1/servers/pets/imports', { token: temp.token })).status).toBe(401);

    expect((await api(`/v1/workspace/tokens/${temp.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(`/v1/workspace/tokens/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
  });
});

describe('ids and names', () => {
  it('answers a NUL byte in an id or a name with 404/400, never 500', async () => {
    expect((await api('/v1/servers/pe%00ts/imports')).status).toBe(404);
    expect((await api('/v1/servers/pets/imports/x%00y')).status).toBe(404);
    expect((await api('/v1/deploy-tokens/x%00y', { method: 'DELETE' })).status).toBe(404);
    expect((await api('/v1/workspace/tokens/x%00y', { method: 'DELETE' })).status).toBe(404);
    const named = await api('/v1/servers/pets/deploy-tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'a\u0000b' }),
    });
    expect(named.status).toBe(400);
    const registered = await api('/v1/servers', {
      method: 'POST',
      body: JSON.stringify({ repository: REPOSITORY, branch: 'ma\u0000in', path: 'mcp/pets' }),
    });
    expect(registered.status).toBe(400);
  });
});

describe('webhooks', () => {
  it('GitHub: an unknown repository is answered like a wrong signature', async () => {
    const body = (clone_url: string) => ({
      action: 'closed',
      pull_request: { merged: true, base: { ref: 'main' } },
      repository: { clone_url },
    });
    const post = (payload: unknown, key: string) => {
      const text = JSON.stringify(payload);
      return api('/v1/hooks/github', {
        method: 'POST',
        token: '',
        body: text,
        headers: {
          'x-github-event': 'pull_request',
          'x-github-delivery': randomUUID(),
          'x-hub-signature-256': `sha256=${createHmac('sha256', key).update(text).digest('hex')}`,
        },
      });
    };
    const wrong = await post(body(REPOSITORY), 'not the secret');
    const unknown = await post(body('https://git.example.invalid/nobody/nothing.git'), secret);
    expect(unknown.status).toBe(wrong.status);
    expect(await unknown.json()).toEqual(await wrong.json());
    expect(wrong.status).toBe(401);
  });

  it('GitLab: X-Gitlab-Token must equal the server secret; only merges queue', async () => {
    const send = (action: string, token: string, uuid = randomUUID()) =>
      api('/v1/hooks/gitlab/pets', {
        method: 'POST',
        token: '',
        body: JSON.stringify({
          object_kind: 'merge_request',
          object_attributes: { action, target_branch: 'main' },
        }),
        headers: {
          'content-type': 'application/json',
          'x-gitlab-event': 'Merge Request Hook',
          'x-gitlab-token': token,
          'idempotency-key': uuid,
        },
      });
    expect((await send('merge', `${secret}x`)).status).toBe(401);
    expect((await send('open', secret)).status).toBe(200);
    const uuid = randomUUID();
    expect((await send('merge', secret, uuid)).status).toBe(202);
    expect((await send('merge', secret, uuid)).status).toBe(200);
    // GitLab's signing token: Standard Webhooks headers instead of the plain token.
    const body = JSON.stringify({
      object_kind: 'merge_request',
      object_attributes: { action: 'merge', target_branch: 'main' },
    });
    const signed = (key: string) => {
      const id = `msg_${randomUUID()}`;
      const at = new Date();
      return api('/v1/hooks/gitlab/pets', {
        method: 'POST',
        token: '',
        body,
        headers: {
          'x-gitlab-event': 'Merge Request Hook',
          'webhook-id': id,
          'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
          'webhook-signature': new StandardWebhook(key).sign(id, at, body),
        },
      });
    };
    expect(
      (await signed(`whsec_${Buffer.from('another secret, 24 bytes+').toString('base64')}`)).status,
    ).toBe(401);
    expect((await signed(secret)).status).toBe(202);
    const jobs = (await (await api('/v1/servers/pets/imports')).json()) as { trigger: string }[];
    expect(jobs.map((j) => j.trigger)).toEqual(['gitlab', 'gitlab']);
  });
});
