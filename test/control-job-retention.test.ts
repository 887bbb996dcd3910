/**
 * Job history is pruned per server: with keepJobs 2, after four manual import jobs of a real
 * server (a git repository registered by path, embedded store) the API lists the newest two, the
 * database holds no more, and the log says how many went.
 */
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { RunningControl } from '../control/index.js';
import { createServerRepo, FOLDER, type ServerRepo } from '../control/testing/server-repo.js';
import { startTestControl } from './helpers/control-service.js';

let repo: ServerRepo;
let control: RunningControl;
let data: string;
let pat: string;
const logs: { event: string; fields?: Record<string, unknown> }[] = [];

const api = (path: string, init: RequestInit = {}) =>
  fetch(`${control.url}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
  });

beforeAll(async () => {
  repo = await createServerRepo();
  ({ data, pat, control } = await startTestControl('svc-control-retention-', {
    workerPollMs: 100,
    keepJobs: 2,
    logger: { log: (_level, event, fields) => logs.push({ event, ...(fields ? { fields } : {}) }) },
  }));
  const created = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
  });
  expect(created.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await control?.close();
  repo?.cleanup();
  rmSync(data, { recursive: true, force: true });
});

async function runJob(): Promise<string> {
  const { jobId } = (await (await api('/v1/servers/pets/imports', { method: 'POST' })).json()) as {
    jobId: string;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const job = (await (await api(`/v1/servers/pets/imports/${jobId}`)).json()) as { status?: string };
    if (job.status === 'Complete' || job.status === 'Failed') return jobId;
    if (Date.now() > deadline) throw new Error(`job ${jobId} still ${String(job.status)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('keeps the newest N jobs of a server and deletes the older ones', async () => {
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push(await runJob());
  const listed = ((await (await api('/v1/servers/pets/imports')).json()) as { jobId: string }[]).map(
    (j) => j.jobId,
  );
  expect(listed).toEqual([ids[3], ids[2]]);
  const rows = await control.store.db.selectFrom('import_jobs').select('id').execute();
  expect(rows.map((r) => r.id).sort()).toEqual([ids[2], ids[3]].sort());
  expect((await api(`/v1/servers/pets/imports/${ids[0]}`)).status).toBe(404);
  const deleted = logs
    .filter((l) => l.event === 'jobs_pruned')
    .reduce((n, l) => n + Number(l.fields?.deleted), 0);
  expect(deleted).toBe(2);
});
