/**
 * Workers benchmark (issue 21): the bundle `svc worker build` writes, its size against the
 * Workers limits, its startup cost, and tools/call through workerd against the Node runtime in
 * the same run (same upstream, same folder, same load generators; metrics off in Node, as a
 * Worker has none).
 *
 *   npm run bench -- workers            this section only
 *   npm run bench -- workers --quick    shorter rows
 *
 * Sizes: a 20-tool folder (bench/runtime/bench-folder.ts) and GitHub's API with its first 200
 * tools enabled. Startup: workerd spawned → first /healthz answered, and the CPU workerd spent
 * by then, each less a one-line Worker's; and in Node, the CPU to evaluate worker.mjs and answer
 * its first request (the work Cloudflare counts against the 1 s startup limit happens in the
 * same V8, so the figure is of the same order, not the same number).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { packageRoot } from '../core/package-root.js';
import { bundleWorker, type WorkerBuild } from '../cli/worker/build-worker.js';
import { workerdConfig } from '../cli/worker/worker-config-files.js';
import { loadFolderDir } from '../runtime/load-source.js';
import { startWorkerd, type Workerd } from '../runtime/testing/workerd.js';
import { folderOf } from './discovery-bench.js';
import { writeBenchFolder } from './runtime/bench-folder.js';
import { type Driver, rawDriver, sdkDriver } from './runtime/clients.js';
import {
  cpuMs,
  drive,
  newTally,
  percentile,
  quietClientSignalWarnings,
  spawnTarget,
  type Tally,
} from './runtime-bench.js';

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(0)} KiB`;
}

async function githubFolder(): Promise<Awaited<ReturnType<typeof folderOf>>> {
  const root = packageRoot();
  let location = join(root, 'node_modules/@octokit/openapi/generated/api.github.com.json');
  if (!existsSync(location)) {
    location = join(tmpdir(), 'svc-bench-github-22.json');
    await writeFile(
      location,
      gunzipSync(await readFile(join(root, 'fixtures/reimport/api.github.com-22.0.0.json.gz'))),
    );
  }
  const folder = await folderOf(location, 'github');
  return { ...folder, tools: folder.tools.map((t, i) => ({ ...t, tool: { ...t.tool, enabled: i < 200 } })) };
}

/** CPU ms (user + system) of evaluating worker.mjs and answering its first request, in a fresh Node. */
function nodeStartupCpu(bundle: string): Promise<{ evalMs: number; firstMs: number }> {
  const script = `
    const t0 = process.cpuUsage();
    const worker = (await import(${JSON.stringify(pathToFileURL(bundle).href)})).default;
    const t1 = process.cpuUsage(t0);
    const answer = await worker.fetch(new Request('http://localhost/readyz'), {});
    await answer.text();
    const t2 = process.cpuUsage(t0);
    const ms = (u) => (u.user + u.system) / 1000;
    console.log(JSON.stringify({ evalMs: ms(t1), firstMs: ms(t2) - ms(t1), status: answer.status }));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
    });
    child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out)) : reject(new Error(`exit ${code}`))));
  });
}

/** workerd from spawn to the first /healthz answer: wall ms and its CPU ms by then. */
async function workerdStartup(dir: string): Promise<{ wallMs: number; cpuMs: number; worker: Workerd }> {
  const started = performance.now();
  const worker = await startWorkerd(dir);
  const wallMs = performance.now() - started;
  return { wallMs, cpuMs: cpuMs(worker.pid), worker };
}

interface Row {
  target: string;
  client: string;
  era: string;
  concurrency: number;
  tally: Tally;
}

async function measureRow(row: Row, pid: number, make: () => Promise<Driver>): Promise<void> {
  const driver = await make();
  try {
    await drive(driver, row.concurrency, pid, row.tally);
  } finally {
    await driver.close();
  }
}

export async function runWorkersBench(): Promise<void> {
  const clientWarnings = quietClientSignalWarnings();
  const upstream = await spawnTarget('upstream');
  const scratch = await mkdtemp(join(tmpdir(), 'svc-bench-workers-'));
  const folder20 = await writeBenchFolder(`${upstream.url}/api`, 20);
  try {
    // Sizes and build time.
    const builds: [string, WorkerBuild, number, string][] = [];
    for (const [label, load] of [
      ['20-tool folder', async () => (await loadFolderDir(folder20)).folder],
      ['GitHub, 200 of its tools enabled', githubFolder],
    ] as const) {
      const folder = await load();
      const out = join(scratch, label.startsWith('G') ? 'github' : 'twenty');
      const t0 = performance.now();
      const built = await bundleWorker(folder, out);
      builds.push([label, built, performance.now() - t0, out]);
    }
    console.log('| bundle | tools | validators | worker.mjs | gzip | build |');
    console.log('|---|---:|---:|---:|---:|---:|');
    for (const [label, b, ms] of builds)
      console.log(
        `| ${label} | ${b.servedTools} | ${b.validators} | ${kib(b.bytes)} | ${kib(b.gzipBytes)} | ${ms.toFixed(0)} ms |`,
      );
    console.log(
      '\nWorkers limits: 64 MiB uncompressed on every plan (since May 2026); before, 3 MB (free) and 10 MB (paid) gzip-compressed.',
    );

    // Startup.
    const hello = join(scratch, 'hello');
    await mkdir(hello, { recursive: true });
    await writeFile(join(hello, 'worker.mjs'), "export default { fetch: () => new Response('ok') };\n");
    await writeFile(join(hello, 'workerd.capnp'), workerdConfig());
    const base = await workerdStartup(hello);
    await base.worker.close();
    console.log(
      '\n| bundle | workerd up (spawn → /healthz), less a one-line Worker | workerd CPU by then, less | Node: evaluate worker.mjs | Node: first request |',
    );
    console.log('|---|---:|---:|---:|---:|');
    for (const [label, , , out] of builds) {
      const up = await workerdStartup(out);
      await up.worker.close();
      const node = await nodeStartupCpu(join(out, 'worker.mjs'));
      console.log(
        `| ${label} | ${(up.wallMs - base.wallMs).toFixed(0)} ms | ${(up.cpuMs - base.cpuMs).toFixed(0)} ms | ${node.evalMs.toFixed(0)} ms CPU | ${node.firstMs.toFixed(0)} ms CPU |`,
      );
    }

    // Throughput: workerd and the Node runtime, same upstream and folder, alternating.
    const workerDir = builds[0]![3];
    const rows: Row[] = [];
    const cases: [string, string, number][] = [
      ['raw', 'modern', 1],
      ['raw', 'legacy', 1],
      ['raw', 'modern', 16],
      ['raw', 'legacy', 16],
      ['sdk', 'modern', 1],
      ['sdk', 'legacy', 1],
    ];
    for (const [client, era, concurrency] of cases) {
      for (const target of ['node', 'workerd']) {
        const row: Row = { target, client, era, concurrency, tally: newTally() };
        rows.push(row);
        const served =
          target === 'node'
            ? await spawnTarget('runtime', folder20, 'hot', 'off')
            : await startWorkerd(workerDir).then((w) => ({
                url: `${w.origin}/mcp`,
                pid: w.pid,
                stop: w.close,
              }));
        try {
          await measureRow(row, served.pid, () =>
            client === 'raw'
              ? rawDriver(era as 'modern' | 'legacy', served.url, concurrency)
              : sdkDriver(era as 'modern' | 'legacy', served.url, concurrency),
          );
        } finally {
          await served.stop();
        }
        process.stderr.write(`\r  workers bench: ${rows.length}/${cases.length * 2} rows measured`);
      }
    }
    process.stderr.write('\n');
    console.log(
      '\n| client | era | clients | Node runtime calls/s | workerd calls/s | Node p50 | workerd p50 | Node CPU/call | workerd CPU/call | wrong/errors |',
    );
    console.log('|---|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const [client, era, concurrency] of cases) {
      const pick = (target: string) =>
        rows.find(
          (r) => r.target === target && r.client === client && r.era === era && r.concurrency === concurrency,
        )!.tally;
      const [n, w] = [pick('node'), pick('workerd')];
      for (const t of [n, w]) t.latencies.sort((a, b) => a - b);
      const perSec = (t: Tally) => ((t.calls / t.elapsedMs) * 1000).toFixed(0);
      const cpu = (t: Tally) => `${((t.cpuMs / t.calls) * 1000).toFixed(0)} µs`;
      console.log(
        `| ${client} | ${era === 'modern' ? '2026-07-28' : '2025-11-25'} | ${concurrency} | ${perSec(n)} | ${perSec(w)} | ${percentile(n.latencies, 50).toFixed(2)} ms | ${percentile(w.latencies, 50).toFixed(2)} ms | ${cpu(n)} | ${cpu(w)} | ${n.wrong + n.errors}/${w.wrong + w.errors} |`,
      );
    }
    if (clientWarnings() > 0)
      console.log(
        `\n(${clientWarnings()} MaxListenersExceededWarning from the SDK client in the load generator.)`,
      );
  } finally {
    await upstream.stop();
    await rm(scratch, { recursive: true, force: true });
    await rm(folder20, { recursive: true, force: true });
  }
}
