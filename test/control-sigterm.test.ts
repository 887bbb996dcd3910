/**
 * `control serve` stops promptly on SIGTERM during an import job (issue 17 item 8): the job under
 * way is cancelled and put back in the queue, not lost and not failed, and the service exits 0
 * within a couple of seconds (it used to wait for the job, 30 s and more). The next start of the
 * service runs the job to the end.
 *
 * The job is held in its import step by its OpenAPI source, an HTTP server on loopback that
 * does not answer until the test lets it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openControlStore, startControl } from '../control/index.js';
import { createServerRepo, FOLDER, petstore, type ServerRepo } from '../control/testing/server-repo.js';
import { bundleEntry } from './helpers/bundle-entry.js';

let out: string;
let data: string;
let repo: ServerRepo;
let child: ChildProcess | undefined;
const held: ServerResponse[] = [];
let answer = false;
let requests = 0;
const source = createServer((_req, res) => {
  requests++;
  if (answer) res.writeHead(200, { 'content-type': 'application/yaml' }).end(petstore('v2'));
  else held.push(res);
});

async function until<T>(what: string, probe: () => Promise<T | undefined | false> | T | undefined | false) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

beforeAll(async () => {
  out = mkdtempSync(resolve('.control-sigterm-test-'));
  data = mkdtempSync(join(tmpdir(), 'svc-control-sigterm-'));
  await new Promise<void>((r) => source.listen(0, '127.0.0.1', () => r()));
  const port = (source.address() as AddressInfo).port;
  repo = await createServerRepo();
  const config = readFileSync(join(repo.repo.dir, FOLDER, 'config.yaml'), 'utf8');
  const moved = config.replace('../../specs/petstore.yaml', `http://127.0.0.1:${port}/petstore.yaml`);
  expect(moved).not.toBe(config);
  repo.push({ [`${FOLDER}/config.yaml`]: moved }, 'read the spec from the API host');
  await bundleEntry('control/main.ts', join(out, 'control.mjs'), { packages: 'external' });
}, 60_000);

afterAll(async () => {
  child?.kill('SIGKILL');
  for (const res of held) res.destroy();
  source.closeAllConnections();
  await new Promise((r) => source.close(r));
  repo?.cleanup();
  rmSync(out, { recursive: true, force: true });
  rmSync(data, { recursive: true, force: true });
});

it('SIGTERM during a job exits within seconds and puts the job back in the queue', async () => {
  const store = await openControlStore({ dataDir: data });
  const { token } = await store.createWorkspaceToken('ci');
  await store.close();
  child = spawn(process.execPath, [join(out, 'control.mjs')], {
    // The repository and the source are on loopback: private addresses are allowed on purpose.
    env: {
      PATH: process.env.PATH ?? '',
      SVC_CONTROL_PORT: '0',
      SVC_DATA_DIR: data,
      SVC_CONTROL_ALLOW_PRIVATE: '1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  child.stdout!.on('data', (d: Buffer) => {
    stdout += d.toString();
  });
  const exit = new Promise<number | null>((r) => child!.once('exit', (code) => r(code)));
  const url = await until(
    'the listening line',
    () => stdout.includes('\n') && stdout.trim().split(' ').at(-1),
  );
  const api = (path: string, init: RequestInit = {}) =>
    fetch(`${url}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
  const registered = await api('/v1/servers', {
    method: 'POST',
    body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
  });
  expect(registered.status).toBe(201);
  const { jobId } = (await (await api('/v1/servers/pets/imports', { method: 'POST' })).json()) as {
    jobId: string;
  };
  // The job is in its import step, waiting for the source.
  await until('the job to read its source', () => requests > 0);

  const stopped = performance.now();
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  const tookMs = performance.now() - stopped;
  expect(tookMs).toBeLessThan(5000);

  const after = await openControlStore({ dataDir: data });
  const job = await after.getJob(jobId);
  await after.close();
  expect(job).toMatchObject({ status: 'Pending', lease_owner: null, error: null, progress: null });

  // The next start takes the job up again and finishes it.
  answer = true;
  const control = await startControl({
    port: 0,
    dataDir: data,
    workerPollMs: 100,
    logger: { log() {} },
    allowPrivateAddresses: true,
  });
  try {
    const done = await until('the job to finish', async () => {
      const row = await control.store.getJob(jobId);
      return row && (row.status === 'Complete' || row.status === 'Failed') ? row : undefined;
    });
    expect(done).toMatchObject({ status: 'Complete', attempts: 1 });
    expect(done.commit_sha).toMatch(/^[0-9a-f]{40}$/);
  } finally {
    await control.close();
  }
}, 90_000);
