/**
 * Control service benchmark (issue 12): the snapshot poll a runtime makes every interval,
 * answered 304 (If-None-Match hit) on loopback — p50/p95 latency from one client, then an open
 * loop at 1,000 polls/s for a few seconds, each poll with its own deploy token (1,000 tokens),
 * counting every answer that is not a 304. The service runs in its own process (the built
 * control/main.js on the embedded store); the load generator speaks plain HTTP with keep-alive.
 * Reports figures against the aims; asserts nothing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openRepository } from '../control/git/git-repository.js';
import { runImportJob } from '../control/import-job.js';
import { openControlStore } from '../control/index.js';
import { createServerRepo, FOLDER, petstore } from '../control/testing/server-repo.js';

const MAIN = fileURLToPath(new URL('../control/main.js', import.meta.url));
const TOKENS = 1000;
const RATE = Number(process.env.BENCH_CONTROL_RATE ?? 1000);
const DURATION_MS = Number(process.env.BENCH_CONTROL_MS ?? 5000);
const LATENCY_SAMPLES = 3000;

const agent = new Agent({ keepAlive: true, maxSockets: 64 });

function get(url: string, headers: Record<string, string>): Promise<{ status: number; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    const req = request(url, { agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - started }));
    });
    req.on('error', () => resolve({ status: 0, ms: performance.now() - started }));
    req.end();
  });
}

/** CPU time (user + system) a process has used so far, from /proc (Linux), in ms. */
function cpuMs(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat (11 and 12 after the command name), in clock ticks.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return undefined;
  }
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;

async function start(data: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [MAIN], {
    env: { PATH: process.env.PATH ?? '', SVC_CONTROL_PORT: '0', SVC_DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.trim().split(' ').at(-1)!);
    });
    child.once('exit', (code) => reject(new Error(`control exited with ${code}`)));
  });
  return { url, child };
}

export async function runControlBench(): Promise<void> {
  const repo = await createServerRepo();
  const data = mkdtempSync(join(tmpdir(), 'svc-bench-control-'));
  const store = await openControlStore({ dataDir: data });
  const { token: pat } = await store.createWorkspaceToken('bench');
  await store.close();
  const { url, child } = await start(data);
  try {
    const registered = await fetch(`${url}/v1/servers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
      body: JSON.stringify({ repository: repo.bare, branch: 'main', path: FOLDER }),
    });
    if (registered.status !== 201) throw new Error(`register: ${registered.status}`);
    const tokens: string[] = [];
    for (let i = 0; i < TOKENS; i++) {
      const made = await fetch(`${url}/v1/servers/pets/deploy-tokens`, {
        method: 'POST',
        headers: { authorization: `Bearer ${pat}`, 'content-type': 'application/json' },
        body: '{}',
      });
      tokens.push(((await made.json()) as { token: string }).token);
    }
    const snapshotUrl = `${url}/v1/servers/pets/export/snapshot`;
    const first = await fetch(snapshotUrl, { headers: { authorization: `Bearer ${tokens[0]}` } });
    const etag = first.headers.get('etag') ?? '';
    const bytes = (await first.text()).length;

    // Latency: one client, sequential, distinct tokens round robin.
    for (let i = 0; i < 300; i++)
      await get(snapshotUrl, { authorization: `Bearer ${tokens[i % TOKENS]}`, 'if-none-match': etag });
    const samples: number[] = [];
    let not304 = 0;
    for (let i = 0; i < LATENCY_SAMPLES; i++) {
      const r = await get(snapshotUrl, {
        authorization: `Bearer ${tokens[i % TOKENS]}`,
        'if-none-match': etag,
      });
      if (r.status !== 304) not304++;
      samples.push(r.ms);
    }
    samples.sort((a, b) => a - b);
    const full: number[] = [];
    for (let i = 0; i < 300; i++)
      full.push((await get(snapshotUrl, { authorization: `Bearer ${tokens[i % TOKENS]}` })).ms);
    full.sort((a, b) => a - b);

    // Open loop at RATE polls/s, each poll with the next of the 1,000 tokens.
    const results: { status: number; ms: number }[] = [];
    const inFlight: Promise<void>[] = [];
    const cpuBefore = cpuMs(child.pid!);
    const began = performance.now();
    let sent = 0;
    while (performance.now() - began < DURATION_MS) {
      const due = Math.floor(((performance.now() - began) / 1000) * RATE);
      while (sent < due) {
        const token = tokens[sent % TOKENS]!;
        inFlight.push(
          get(snapshotUrl, { authorization: `Bearer ${token}`, 'if-none-match': etag }).then(
            (r) => void results.push(r),
          ),
        );
        sent++;
      }
      // Sleep between bursts: a spinning generator would take the CPU the service needs.
      await new Promise((r) => setTimeout(r, 2));
    }
    await Promise.all(inFlight);
    const elapsed = (performance.now() - began) / 1000;
    const cpuAfter = cpuMs(child.pid!);
    const cpuPerPoll =
      cpuBefore !== undefined && cpuAfter !== undefined
        ? ((cpuAfter - cpuBefore) * 1000) / results.length
        : undefined;
    const errors = results.filter((r) => r.status !== 304).length;
    const loadMs = results.map((r) => r.ms).sort((a, b) => a - b);

    console.log(
      `snapshot body ${bytes} bytes; ${TOKENS} deploy tokens; service in its own process (embedded store)`,
    );
    console.log(
      `304 latency, one client: p50 ${quantile(samples, 0.5).toFixed(2)} ms, p95 ${quantile(samples, 0.95).toFixed(2)} ms (aim p50 < 2 ms); non-304 answers: ${not304}`,
    );
    console.log(`200 (full snapshot) latency, one client: p50 ${quantile(full, 0.5).toFixed(2)} ms`);
    console.log(
      `open loop at ${RATE}/s for ${(DURATION_MS / 1000).toFixed(0)} s: ${results.length} polls in ${elapsed.toFixed(2)} s = ${(results.length / elapsed).toFixed(0)}/s, errors (not 304) ${errors}, p50 ${quantile(loadMs, 0.5).toFixed(2)} ms, p99 ${quantile(loadMs, 0.99).toFixed(2)} ms (aim 1,000/s without errors)`,
    );
    if (cpuPerPoll !== undefined) {
      console.log(
        `service CPU per 304 poll under load: ${cpuPerPoll.toFixed(0)} µs → 1,000 polls/s need ${(cpuPerPoll / 10).toFixed(0)}% of one core (load average now ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`,
      );
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    agent.destroy();
    repo.cleanup();
    rmSync(data, { recursive: true, force: true });
  }
}

const BESIDE_FOLDERS = 2;
const FILES_PER_FOLDER = Number(process.env.BENCH_JOB_FILES ?? 1150);

/**
 * One import job (fetch, import, commit, publish) on a repository whose folder sits beside two large
 * folders of other servers (2 × 1,150 files, packed as a clone is), as issue 17 measured it: once with a
 * spec change to commit, once with nothing changed. In process, on a local repository.
 */
export async function runImportJobBench(): Promise<{ changedMs: number; unchangedMs: number }> {
  const repo = await createServerRepo();
  const work = mkdtempSync(join(tmpdir(), 'svc-bench-job-'));
  try {
    const big: Record<string, string> = {};
    for (let f = 0; f < BESIDE_FOLDERS; f++)
      for (let i = 0; i < FILES_PER_FOLDER; i++)
        big[`mcp/other-${f}/Tools/tool-${i}.yaml`] = `name: tool-${i}\n${'description: x\n'.repeat(200)}`;
    repo.push({ ...big, 'specs/petstore.yaml': petstore('v2') }, 'two large folders beside pets');
    execFileSync('git', ['--git-dir', repo.bare, 'gc', '-q']);
    const git = await openRepository(repo.bare, { cacheDir: join(work, 'cache') });
    const job = async () => {
      const started = performance.now();
      const outcome = await runImportJob({
        repo: git,
        branch: 'main',
        path: FOLDER,
        trigger: 'manual',
        workRoot: work,
        now: () => new Date('2026-02-01T00:00:00Z'),
        onProgress: () => undefined,
        stillOwned: () => true,
      });
      if (outcome.status !== 'Complete') throw new Error(`job failed: ${outcome.error}`);
      return performance.now() - started;
    };
    const changedMs = await job();
    const unchangedMs = await job();
    console.log(
      `import job beside ${BESIDE_FOLDERS} folders of ${FILES_PER_FOLDER} files (packed): ${changedMs.toFixed(0)} ms with a change to commit, ${unchangedMs.toFixed(0)} ms with nothing changed`,
    );
    return { changedMs, unchangedMs };
  } finally {
    repo.cleanup();
    rmSync(work, { recursive: true, force: true });
  }
}
