/**
 * The whole loop, for real, on loopback (spec 3.4, 4.1, 4.3): a git repository served over smart
 * HTTP (git http-backend), `svc control` on the embedded store tracking it by URL, a runtime in
 * sync mode polling the control service with a deploy token, and MCP SDK clients.
 *
 * Push a spec change and post a signed GitHub "merged" webhook → the import job commits the
 * re-import to the branch (pushed over HTTP) → the snapshot's ETag changes → the runtime serves
 * the new tool list within one poll, while a session opened before keeps its tool set. Revoking
 * the deploy token → the runtime keeps its last good config and logs the 403.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { IMPORT_TRAILER } from '../action/src/merge-mode.js';
import { type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from '../control/testing/server-repo.js';
import {
  type LogRecord,
  memoryLogger,
  parseRuntimeEnv,
  type RunningRuntime,
  startRuntime,
} from '../runtime/index.js';
import { type GitHttpServer, startGitHttpServer } from './helpers/git-http-server.js';
import { connectClient } from './helpers/mcp-client.js';

const SYNC_INTERVAL_MS = 1000;

let root: string;
let gitServer: GitHttpServer;
let repo: ServerRepo;
let control: RunningControl;
let runtime: RunningRuntime;
let runtimeLog: ReturnType<typeof memoryLogger>;
let pat: string;
let repositoryUrl: string;
const cleanup: (() => Promise<unknown>)[] = [];

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json', ...init.headers },
  });

async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false> | T | undefined | false,
  ms = 30_000,
) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function connect(era: 'modern' | 'legacy'): Promise<Client> {
  const client = await connectClient(runtime.url, `control-e2e-${era}`, era);
  cleanup.push(() => client.close());
  return client;
}

const toolList = async (client: Client) =>
  (await client.listTools()).tools.map((t) => ({ name: t.name, required: t.inputSchema.required ?? [] }));
const events = (name: string): LogRecord[] => runtimeLog.records.filter((r) => r.event === name);

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-control-e2e-'));
  repo = await createServerRepo({ bareDir: join(root, 'repos', 'team', 'api.git'), enableAllTools: true });
  gitServer = await startGitHttpServer({ root: join(root, 'repos') });
  repositoryUrl = `${gitServer.url}/team/api.git`;
  control = await startControl({
    port: 0,
    dataDir: join(root, 'control'),
    // The git server is on loopback.
    allowPrivateAddresses: true,
    workerPollMs: 500,
    logger: { log() {} },
  });
  pat = (await control.store.createWorkspaceToken('e2e')).token;
}, 60_000);

afterAll(async () => {
  for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  await runtime?.close();
  await control?.close();
  await gitServer?.close();
  repo?.cleanup();
  rmSync(root, { recursive: true, force: true });
});

it('a merged spec change reaches a syncing runtime within one poll; revocation keeps the last good config', async () => {
  // Register the server by its HTTP git URL and give the runtime a deploy token.
  const registered = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repositoryUrl, branch: 'main', path: FOLDER }),
  });
  expect(registered.status).toBe(201);
  const { webhookSecret } = (await registered.json()) as { webhookSecret: string };
  const deploy = (await (
    await api('/v1/servers/pets/deploy-tokens', { method: 'POST', body: '{}' })
  ).json()) as {
    id: string;
    token: string;
  };
  const snapshot = () =>
    fetch(`${control.url}/v1/servers/pets/export/snapshot`, {
      headers: { authorization: `Bearer ${deploy.token}` },
    });
  const etagBefore = (await snapshot()).headers.get('etag');
  expect(etagBefore).toBeTruthy();

  runtimeLog = memoryLogger();
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_SYNC_URL: control.url,
      SVC_DEPLOY_TOKEN: deploy.token,
    }),
    folderDir: join(repo.repo.dir, FOLDER),
    logger: runtimeLog,
    syncIntervalMs: SYNC_INTERVAL_MS,
    syncTimeoutMs: 5000,
  });
  await until('the first poll', () => events('sync_unchanged').length > 0);
  const before = await connect('legacy');
  const v1 = await toolList(before);
  expect(v1.map((t) => t.name).sort()).toEqual(['deletePet', 'listPets', 'showPetById']);
  expect(v1.find((t) => t.name === 'showPetById')?.required).not.toContain('fields');

  // A pull request changing the spec is merged into main; GitHub posts the signed event.
  repo.push({ 'specs/petstore.yaml': petstore('v2') }, 'petstore v2 (#12)');
  const body = JSON.stringify({
    action: 'closed',
    number: 12,
    pull_request: { number: 12, merged: true, base: { ref: 'main' } },
    repository: { full_name: 'team/api', clone_url: repositoryUrl },
  });
  const hookSent = Date.now();
  const hook = await fetch(`${control.url}/v1/hooks/github`, {
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-github-event': 'pull_request',
      'x-github-delivery': randomUUID(),
      'x-hub-signature-256': `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}`,
    },
  });
  expect(hook.status).toBe(202);
  const [jobId] = ((await hook.json()) as { jobIds: string[] }).jobIds;

  // The job re-imports and pushes its commit to the tracked branch over HTTP.
  const job = await until('the import job', async () => {
    const jobs = (await (await api('/v1/servers/pets/imports')).json()) as Record<string, unknown>[];
    const found = jobs.find((j) => j.jobId === jobId);
    return found && (found.status === 'Complete' || found.status === 'Failed') ? found : undefined;
  });
  const done = Date.now();
  const logMark = runtimeLog.records.length;
  expect(job).toMatchObject({
    status: 'Complete',
    trigger: 'github',
    commit: expect.stringMatching(/^[0-9a-f]{40}$/),
  });
  expect(repo.headMessage()).toContain(IMPORT_TRAILER);
  expect(repo.log()[0]).toContain('- mcp/pets: ');

  // The snapshot changes at once (the job's commit resets the head cache).
  const etagAfter = (await snapshot()).headers.get('etag');
  expect(etagAfter).not.toBe(etagBefore);

  // The runtime swaps within one poll interval; a new session sees the new tools.
  await until('sync_updated', () => events('sync_updated').length > 0, SYNC_INTERVAL_MS * 3);
  const swapMs = Date.now() - done;
  // Within one poll: at most the poll already in flight when the job finished saw the old head.
  const between = runtimeLog.records.slice(logMark).findIndex((r) => r.event === 'sync_updated');
  const unchangedPolls = runtimeLog.records
    .slice(logMark, logMark + between)
    .filter((r) => r.event === 'sync_unchanged').length;
  expect(unchangedPolls).toBeLessThanOrEqual(1);
  expect(swapMs).toBeLessThan(SYNC_INTERVAL_MS * 3);
  expect(events('sync_updated')[0]).toMatchObject({ etag: etagAfter });
  const fresh = await connect('modern');
  const v2 = await toolList(fresh);
  expect(v2.find((t) => t.name === 'showPetById')?.required).toContain('fields');
  expect(v2).not.toEqual(v1);
  // The session opened before keeps its tool set (spec 3.4).
  expect(await toolList(before)).toEqual(v1);

  // Revoke the token: the runtime logs the 403 and keeps serving the last good config.
  expect((await api(`/v1/deploy-tokens/${deploy.id}`, { method: 'DELETE' })).status).toBe(204);
  await until('sync_forbidden', () => events('sync_forbidden').length > 0, SYNC_INTERVAL_MS * 3);
  expect(events('sync_forbidden')[0]).toMatchObject({ level: 'warn', status: 403 });
  expect(JSON.stringify(runtimeLog.records)).not.toContain(deploy.token);
  expect(await toolList(await connect('modern'))).toEqual(v2);
  console.info(
    `control e2e: webhook → job done ${done - hookSent} ms (fetch, import, commit, push over HTTP); job done → runtime swapped ${swapMs} ms (poll interval ${SYNC_INTERVAL_MS} ms)`,
  );
}, 90_000);
