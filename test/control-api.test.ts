/**
 * The control service's API on the embedded store, through real HTTP on 127.0.0.1, against a
 * real git repository registered by path: workspace and deploy tokens, the snapshot's statuses
 * and ETag, the plan, manual import jobs that commit with the Action's commit shape, and the
 * three webhook receivers (signatures, merges only, duplicate deliveries). What needs no port
 * (refusals of webhooks, NUL bytes, token expiry) is in control/control-app.test.ts.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_TRAILER } from '../action/src/merge-mode.js';
import { openControlStore, type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from '../control/testing/server-repo.js';
import { svc } from './helpers/run-cli.js';
import { startTestControl } from './helpers/control-service.js';

let repo: ServerRepo;
let control: RunningControl;
let data: string;
let pat: string;
let secret: string;
const logs: { event: string; fields?: Record<string, unknown> }[] = [];

const api = (path: string, init: RequestInit & { token?: string } = {}) => {
  const headers = new Headers(init.headers);
  const token = init.token ?? pat;
  if (token) headers.set('authorization', `Bearer ${token}`);
  if (init.body && !headers.has('content-type')) headers.set('content-type', 'application/json');
  return fetch(`${control.url}${path}`, { ...init, headers });
};

async function waitForJob(jobId: string, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const jobs = (await (await api('/v1/servers/pets/imports')).json()) as Record<string, unknown>[];
    const job = jobs.find((j) => j.jobId === jobId);
    if (job && (job.status === 'Complete' || job.status === 'Failed')) return job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${String(job?.status)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  repo = await createServerRepo();
  ({ data, pat, control } = await startTestControl('svc-control-', {
    logger: { log: (_level, event, fields) => logs.push({ event, ...(fields ? { fields } : {}) }) },
  }));
}, 60_000);

afterAll(async () => {
  await control?.close();
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
});

describe('svc control API', () => {
  it('prints a workspace token once and requires one', async () => {
    expect(pat).toMatch(/^svc_pat_/);
    expect((await fetch(`${control.url}/healthz`)).status).toBe(200);
    expect((await api('/v1/servers', { token: '' })).status).toBe(401);
    const bad = await api('/v1/servers', { token: 'svc_pat_nope' });
    expect(bad.status).toBe(401);
    expect(await bad.json()).toEqual({ error: { code: 'UNAUTHORIZED', message: expect.any(String) } });
  });

  it('registers a server from a local repository and refuses a missing or duplicate folder', async () => {
    const created = await api('/v1/servers', {
      method: 'POST',
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
    });
    expect(created.status).toBe(201);
    const body = (await created.json()) as { serverId: string; webhookSecret: string };
    expect(body.serverId).toBe('pets');
    expect(body.webhookSecret).toMatch(/^whsec_/);
    secret = body.webhookSecret;
    const again = await api('/v1/servers', {
      method: 'POST',
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
    });
    expect(again.status).toBe(409);
    const missing = await api('/v1/servers', {
      method: 'POST',
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: 'specs' }),
    });
    expect(missing.status).toBe(400);
    const list = (await (await api('/v1/servers')).json()) as Record<string, unknown>[];
    expect(list).toEqual([
      {
        serverId: 'pets',
        repository: repo.bare,
        branch: 'main',
        path: FOLDER,
        published: true,
        lastImport: null,
      },
    ]);
    expect(JSON.stringify(list)).not.toContain(secret);
  });

  it('serves the snapshot to its deploy token with a strong ETag, and refuses the others', async () => {
    const made = await svc(['control', 'token', 'deploy', '--server', 'pets', '--data', data], { cwd: data });
    expect(made.code).toBe(0);
    const token = made.stdout.trim();
    const url = '/v1/servers/pets/export/snapshot';
    const first = await api(url, { token });
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{43}"$/);
    const snapshot = (await first.json()) as {
      server: { server: { id: string } };
      files: Record<string, string>;
    };
    expect(snapshot.server.server.id).toBe('pets');
    expect(Object.keys(snapshot.files)).toContain('config.yaml');
    expect(Object.keys(snapshot.files).some((f) => f.startsWith('.svc/'))).toBe(false);
    const cached = await api(url, { token, headers: { 'if-none-match': etag } });
    expect(cached.status).toBe(304);
    // Weak comparison: a proxy that weakened the ETag still gets a 304.
    expect((await api(url, { token, headers: { 'if-none-match': `W/${etag}` } })).status).toBe(304);
    expect((await api(url, { token: '' })).status).toBe(401);
    expect((await api(url, { token: pat })).status).toBe(401);
    expect((await api('/v1/servers/other/export/snapshot', { token })).status).toBe(404);
    // A token of another server is refused here, and works for its own.
    await control.store.addServer({
      id: 'other',
      repository: repo.bare,
      branch: 'main',
      path: FOLDER,
      webhook_secret_sealed: 'unused',
    });
    const otherToken = (await control.store.createDeployToken('other', 'x')).token;
    const wrong = await api(url, { token: otherToken });
    expect(wrong.status).toBe(403);
    expect(await wrong.json()).toMatchObject({ error: { code: 'WRONG_SERVER' } });
    expect((await api('/v1/servers/pets/export/snapshot', { token })).status).toBe(200);

    await api('/v1/workspace/plan', { method: 'PUT', body: JSON.stringify({ plan: 'free' }) });
    const free = await api(url, { token });
    expect(free.status).toBe(403);
    expect(((await free.json()) as { error: { message: string } }).error.message).toMatch(/free plan/);
    expect(
      (await api('/v1/workspace/plan', { method: 'PUT', body: JSON.stringify({ plan: 'paid' }) })).status,
    ).toBe(200);

    const viaApi = await api('/v1/servers/pets/deploy-tokens', { method: 'POST', body: '{"name":"edge"}' });
    expect(viaApi.status).toBe(201);
    const second = (await viaApi.json()) as { id: string; token: string };
    expect((await api(url, { token: second.token })).status).toBe(200);
    expect((await api(`/v1/deploy-tokens/${second.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api(url, { token: second.token })).status).toBe(403);
    expect((await api(`/v1/deploy-tokens/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
  });

  it('runs a manual import: nothing changed, no commit', async () => {
    const queued = await api('/v1/servers/pets/imports', { method: 'POST' });
    expect(queued.status).toBe(202);
    const { jobId } = (await queued.json()) as { jobId: string };
    const job = await waitForJob(jobId);
    expect(job).toMatchObject({ status: 'Complete', trigger: 'manual' });
    expect(job.commit).toBeUndefined();
    expect(repo.log()).toHaveLength(1);
  });

  it('a signed generic webhook re-imports a changed spec and commits with the merge-mode shape', async () => {
    repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'petstore v2');
    const before = repo.log().length;
    const body = JSON.stringify({ reason: 'spec changed' });
    const id = `msg_${randomUUID()}`;
    const timestamp = new Date();
    const signature = new StandardWebhook(secret).sign(id, timestamp, body);
    const headers = {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(timestamp.getTime() / 1000)),
      'webhook-signature': signature,
    };
    const bad = await fetch(`${control.url}/v1/hooks/generic/pets`, {
      method: 'POST',
      body: `${body} `,
      headers,
    });
    expect(bad.status).toBe(401);
    const sent = await fetch(`${control.url}/v1/hooks/generic/pets`, { method: 'POST', body, headers });
    expect(sent.status).toBe(202);
    const { jobIds } = (await sent.json()) as { jobIds: string[] };
    const dup = await fetch(`${control.url}/v1/hooks/generic/pets`, { method: 'POST', body, headers });
    expect(dup.status).toBe(200);
    expect(await dup.json()).toMatchObject({ status: 'duplicate', jobIds });
    const job = await waitForJob(jobIds[0]!);
    expect(job).toMatchObject({
      status: 'Complete',
      trigger: 'generic',
      commit: expect.stringMatching(/^[0-9a-f]{40}$/),
    });
    const log = repo.log();
    expect(log).toHaveLength(before + 1);
    expect(log[0]).toMatch(/^chore\(mcp\): re-import API descriptions\n\n- mcp\/pets: /);
    expect(log[0]).toContain(IMPORT_TRAILER);
    const detail = (await (await api(`/v1/servers/pets/imports/${jobIds[0]}`)).json()) as {
      report: { endpoints: unknown[] };
      markdown: string;
    };
    expect(detail.report.endpoints.length).toBeGreaterThan(0);
    expect(detail.markdown).toContain('#');
    // A second signed delivery ("the API changed") while the branch head is svc's own commit
    // imports again: the loop guard is for git hosts' merge events, not for a request to import.
    const id2 = `msg_${randomUUID()}`;
    const again = await fetch(`${control.url}/v1/hooks/generic/pets`, {
      method: 'POST',
      body,
      headers: {
        ...headers,
        'webhook-id': id2,
        'webhook-signature': new StandardWebhook(secret).sign(id2, timestamp, body),
      },
    });
    expect(again.status).toBe(202);
    const secondId = ((await again.json()) as { jobIds: string[] }).jobIds[0]!;
    const second = await waitForJob(secondId);
    expect(second).toMatchObject({ status: 'Complete', trigger: 'generic' });
    expect(second.summary).not.toMatch(/own re-import commit/);
    const steps = (second.progress as { steps: { step: string; status: string }[] }).steps;
    expect(steps.find((s) => s.step === 'import')?.status).toBe('complete');
    expect(repo.log()).toHaveLength(before + 1);
  });

  it('GitHub: verifies X-Hub-Signature-256 and queues only a merge into the tracked branch', async () => {
    const send = (
      payload: unknown,
      opts: { key?: string; delivery?: string | null; event?: string } = {},
    ) => {
      const body = JSON.stringify(payload);
      const sig = `sha256=${createHmac('sha256', opts.key ?? secret)
        .update(body)
        .digest('hex')}`;
      return fetch(`${control.url}/v1/hooks/github`, {
        method: 'POST',
        body,
        headers: {
          'content-type': 'application/json',
          'x-github-event': opts.event ?? 'pull_request',
          ...(opts.delivery === null ? {} : { 'x-github-delivery': opts.delivery ?? randomUUID() }),
          'x-hub-signature-256': sig,
        },
      });
    };
    const pr = (merged: boolean, base = 'main') => ({
      action: 'closed',
      pull_request: { merged, base: { ref: base } },
      repository: { clone_url: repo.bare },
    });
    expect((await send(pr(true), { key: 'wrong' })).status).toBe(401);
    expect((await send(pr(false))).status).toBe(200);
    expect((await send(pr(true, 'dev'))).status).toBe(200);
    expect((await send({ zen: 'hi', repository: { clone_url: repo.bare } }, { event: 'ping' })).status).toBe(
      200,
    );
    const jobsBefore = ((await (await api('/v1/servers/pets/imports')).json()) as unknown[]).length;
    const delivery = randomUUID();
    const queued = await send(pr(true), { delivery });
    expect(queued.status).toBe(202);
    expect((await send(pr(true), { delivery })).status).toBe(200);
    // A replay of the same signed body under a new or missing X-GitHub-Delivery queues nothing.
    const replayed = await send(pr(true), { delivery: randomUUID() });
    expect(replayed.status).toBe(200);
    expect(await replayed.json()).toMatchObject({ status: 'duplicate' });
    const anonymous = await send(pr(true), { delivery: null });
    expect(anonymous.status).toBe(200);
    expect(await anonymous.json()).toMatchObject({ status: 'duplicate' });
    const jobs = (await (await api('/v1/servers/pets/imports')).json()) as { trigger: string }[];
    expect(jobs).toHaveLength(jobsBefore + 1);
    expect(jobs[0]?.trigger).toBe('github');
    // A new merge (a different signed body) queues again.
    const next = await send({ ...pr(true), number: 2 });
    expect(next.status).toBe(202);
    // The loop guard stays for a git host's merge event: the head is svc's own commit here.
    const { jobIds } = (await queued.json()) as { jobIds: string[] };
    expect(await waitForJob(jobIds[0]!)).toMatchObject({
      status: 'Complete',
      summary: expect.stringMatching(/own re-import commit/),
    });
  });

  it('the documented shell recipe for signing a generic delivery is accepted', async () => {
    const doc = readFileSync(new URL('../docs/control-service.md', import.meta.url), 'utf8');
    const section = doc.slice(doc.indexOf('### Signing a generic delivery'));
    const recipe = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(recipe).toContain('openssl dgst');
    // The service runs in this process: run the recipe without blocking it.
    const runRecipe = (webhookSecret: string) =>
      promisify(execFile)('bash', ['--norc', '--noprofile', '-euo', 'pipefail', '-c', recipe!], {
        env: {
          PATH: process.env.PATH ?? '/usr/bin:/bin',
          SVC_WEBHOOK_SECRET: webhookSecret,
          SVC_HOOK_URL: `${control.url}/v1/hooks/generic/pets`,
        },
        encoding: 'utf8',
        timeout: 20_000,
      });
    const run = await runRecipe(secret);
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toMatchObject({ status: 'queued', jobIds: [expect.any(String)] });
    await waitForJob((JSON.parse(run.stdout) as { jobIds: string[] }).jobIds[0]!);
    // The same recipe with another secret is refused.
    const wrong = await runRecipe(`whsec_${Buffer.alloc(32, 7).toString('base64')}`);
    expect(JSON.parse(wrong.stdout)).toMatchObject({ error: { code: 'BAD_SIGNATURE' } });
  });

  it('a failing import records the failed step and the error, and commits nothing', async () => {
    repo.push({ 'specs/petstore.yaml': 'openapi: 3.0.3\npaths: [\n' }, 'a broken spec');
    const before = repo.log().length;
    const { jobId } = (await (await api('/v1/servers/pets/imports', { method: 'POST' })).json()) as {
      jobId: string;
    };
    const job = await waitForJob(jobId);
    expect(job).toMatchObject({
      status: 'Failed',
      failedStep: 'import:tools',
      error: expect.stringMatching(/^SOURCE_|^SPEC_/),
    });
    expect(JSON.stringify(job)).not.toContain(tmpdir());
    expect(repo.log()).toHaveLength(before);
    repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'fix the spec');
  });

  it('lists, expires and revokes workspace tokens; lists deploy tokens; writes last use', async () => {
    const made = await api('/v1/workspace/tokens', {
      method: 'POST',
      body: JSON.stringify({ name: 'temp', expiresInDays: 1 }),
    });
    expect(made.status).toBe(201);
    const temp = (await made.json()) as { id: string; token: string; expiresAt: string };
    expect(temp.token).toMatch(/^svc_pat_/);
    expect(Date.parse(temp.expiresAt) - Date.now()).toBeGreaterThan(23 * 3600_000);
    expect((await api('/v1/servers', { token: temp.token })).status).toBe(200);
    const list = (await (await api('/v1/workspace/tokens')).json()) as Record<string, unknown>[];
    expect(JSON.stringify(list)).not.toContain(temp.token);
    expect(list.find((t) => t.id === temp.id)).toMatchObject({
      name: 'temp',
      expiresAt: temp.expiresAt,
      revokedAt: null,
      lastUsedAt: expect.stringMatching(/^\d{4}-/),
    });
    // The token this test suite uses is listed with its last use too.
    expect(list.some((t) => t.name === 'ci' && typeof t.lastUsedAt === 'string')).toBe(true);
    expect(
      (await api('/v1/workspace/tokens', { method: 'POST', body: '{"name":"x","expiresInDays":0}' })).status,
    ).toBe(400);
    expect((await api(`/v1/workspace/tokens/${temp.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await api('/v1/servers', { token: temp.token })).status).toBe(401);
    expect((await api(`/v1/workspace/tokens/${randomUUID()}`, { method: 'DELETE' })).status).toBe(404);
    // An expired token is refused.
    const old = await control.store.createWorkspaceToken('old', { expiresAt: '2001-01-01T00:00:00.000Z' });
    expect((await api('/v1/servers', { token: old.token })).status).toBe(401);

    const deploys = (await (await api('/v1/servers/pets/deploy-tokens')).json()) as Record<string, unknown>[];
    expect(deploys.length).toBeGreaterThan(0);
    expect(deploys[0]).toEqual({
      id: expect.any(String),
      serverId: 'pets',
      name: expect.any(String),
      createdAt: expect.any(String),
      lastUsedAt: expect.anything(),
      revokedAt: null,
    });
    expect((await api('/v1/servers/nope/deploy-tokens')).status).toBe(404);

    // The CLI lists both kinds and revokes either.
    const cliList = await svc(['control', 'token', 'list', '--data', data], { cwd: data });
    expect(cliList.code).toBe(0);
    expect(cliList.stdout).toMatch(/^KIND\s+ID\s+NAME/);
    expect(cliList.stdout).toContain(temp.id);
    expect(cliList.stdout).toContain(String(deploys[0]!.id));
    expect(cliList.stdout).not.toContain('svc_pat_');
  });

  it('the CLI makes an expiring workspace token and revokes it', async () => {
    const made = await svc(
      ['control', 'token', 'workspace', '--name', 'cli', '--expires-in', '7', '--data', data],
      {
        cwd: data,
      },
    );
    expect(made.code).toBe(0);
    const token = made.stdout.trim();
    const id = /workspace token id (\S+), expires/.exec(made.stderr)?.[1];
    expect(id).toBeDefined();
    expect((await api('/v1/servers', { token })).status).toBe(200);
    const revoked = await svc(['control', 'token', 'revoke', id!, '--data', data], { cwd: data });
    expect(revoked.code).toBe(0);
    expect((await api('/v1/servers', { token })).status).toBe(401);
    const missing = await svc(['control', 'token', 'revoke', 'nope', '--data', data], { cwd: data });
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain('no workspace or deploy token has the id "nope"');
    const bad = await svc(
      ['control', 'token', 'workspace', '--name', 'x', '--expires-in', 'soon', '--data', data],
      {
        cwd: data,
      },
    );
    expect(bad.code).not.toBe(0);
  });

  it('jobs survive a restart: a Pending job and one whose worker died mid-run are both completed', async () => {
    await control.close();
    const store = await openControlStore({ dataDir: data });
    const pending = await store.enqueueJob({ serverId: 'pets', trigger: 'manual' });
    const orphan = await store.enqueueJob({ serverId: 'pets', trigger: 'manual' });
    // A replica claims the orphan with a short lease and dies.
    expect((await store.claimJob('dead-replica', 300))?.id).toBe(pending.jobId);
    await store.close();
    control = await startControl({
      port: 0,
      dataDir: data,
      headRefreshMs: 0,
      workerPollMs: 200,
      logger: { log() {} },
    });
    const first = await waitForJob(pending.jobId);
    const second = await waitForJob(orphan.jobId);
    expect(first.status).toBe('Complete');
    expect(second.status).toBe('Complete');
    const reopened = (await (await api(`/v1/servers/pets/imports/${pending.jobId}`)).json()) as Record<
      string,
      unknown
    >;
    expect(reopened.status).toBe('Complete');
    const rows = await control.store.getJob(pending.jobId);
    expect(rows?.attempts).toBe(2);
  });
});
