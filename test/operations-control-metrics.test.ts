/**
 * The control service's series (contracts/operations.md) after real work: a server registered
 * from a real git repository, a manual import run by the worker to the end, a webhook delivery
 * whose signature fails, snapshot requests refused and answered. Read from GET /metrics as
 * Prometheus would (SVC_METRICS_TOKEN as a bearer token).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type RunningControl, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, type ServerRepo } from '../control/testing/server-repo.js';

const TOKEN = 'control-metrics-7f6e5d4c';
let repo: ServerRepo;
let data: string;
let control: RunningControl;
let pat: string;

beforeAll(async () => {
  repo = await createServerRepo();
  data = mkdtempSync(join(tmpdir(), 'svc-control-metrics-'));
  control = await startControl({
    port: 0,
    dataDir: data,
    headRefreshMs: 0,
    workerPollMs: 200,
    metricsToken: TOKEN,
    logger: { log() {} },
  });
  pat = (await control.store.createWorkspaceToken('metrics')).token;
}, 60_000);
afterAll(async () => {
  await control?.close();
  repo?.cleanup();
  if (data) rmSync(data, { recursive: true, force: true });
});

const api = (path: string, init: RequestInit = {}, token = pat) =>
  fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  });

async function series(): Promise<string> {
  const response = await fetch(`${control.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
  expect(response.status).toBe(200);
  return response.text();
}

const seriesValue = (text: string, line: string) =>
  Number(new RegExp(`^${line.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);

it('counts jobs, snapshot polls and webhook deliveries', { timeout: 60_000 }, async () => {
  expect((await fetch(`${control.url}/metrics`)).status).toBe(401);
  const created = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
  });
  expect(created.status).toBe(201);
  const { jobId } = (await (await api('/v1/servers/pets/imports', { method: 'POST' })).json()) as {
    jobId: string;
  };
  await expect
    .poll(
      async () => {
        const jobs = (await (await api('/v1/servers/pets/imports')).json()) as {
          jobId: string;
          status: string;
        }[];
        return jobs.find((j) => j.jobId === jobId)?.status;
      },
      { timeout: 30_000, interval: 100 },
    )
    .toBe('Complete');
  // A delivery whose signature does not verify, and snapshot requests without and with a bad token.
  expect((await fetch(`${control.url}/v1/hooks/generic/pets`, { method: 'POST', body: '{}' })).status).toBe(
    401,
  );
  expect((await fetch(`${control.url}/v1/servers/pets/export/snapshot`)).status).toBe(401);
  expect((await api('/v1/servers/pets/export/snapshot', {}, 'svc_dpl_nope')).status).toBe(401);

  const text = await series();
  expect(seriesValue(text, 'svc_control_jobs_total{status="queued"}')).toBe(1);
  await expect
    .poll(async () => seriesValue(await series(), 'svc_control_jobs_total{status="Complete"}'))
    .toBe(1);
  expect(
    seriesValue(text, 'svc_control_webhook_deliveries_total{source="generic",result="bad_signature"}'),
  ).toBe(1);
  expect(seriesValue(text, 'svc_control_snapshot_polls_total{status="401"}')).toBe(2);
});
