/**
 * Runtime benchmark (issue 10): tools/call through the runtime — with its hot path and with
 * every request through the SDK (the path before the hot path, `fastPath: false`), in both
 * protocol eras — against the same upstream called directly, a bare Hono + @hono/node-server
 * proxy and a plain node:http proxy (both calling the upstream over node:http), with a cheap
 * node:http JSON-RPC client and with the SDK v2 client, 1 and 16 concurrent clients.
 *
 * Honest by construction: every measurement gets a fresh server process (each target and each
 * era in its own), warmed with WARM calls before the clock starts; targets run in alternating
 * order (reversed every round) so drift on a shared machine hits them alike; every answer is
 * checked to belong to its caller. Server CPU is the measured process's own (user + system,
 * /proc), per call. Figures are for the note; nothing is asserted.
 *
 *   npm run bench -- runtime            this section only (node dist/bench/main.js runtime)
 *   npm run bench -- runtime --quick    fewer warm-up calls, shorter rows, one round
 *   BENCH_RUNTIME_MS=5000 BENCH_ROUNDS=3 override the row length and the number of rounds
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { writeBenchFolder } from './runtime/bench-folder.js';
import { type Driver, rawDriver, sdkDriver } from './runtime/clients.js';

const TARGETS = fileURLToPath(new URL('./runtime/targets.js', import.meta.url));
const QUICK = process.argv.includes('--quick') || process.env.BENCH_QUICK === '1';
const DURATION_MS = Number(process.env.BENCH_RUNTIME_MS ?? (QUICK ? 1500 : 3000));
const WARM_CALLS = QUICK ? 1000 : 5000;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 2));
const CONCURRENCY = [1, 16];

export interface Target {
  url: string;
  pid: number;
  child?: ChildProcess;
  readyMs: number;
  stop(): Promise<void>;
}

export async function spawnTarget(...args: string[]): Promise<Target> {
  const started = performance.now();
  const child = spawn(process.execPath, [TARGETS, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)));
  });
  return {
    url,
    pid: child.pid!,
    child,
    readyMs: performance.now() - started,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/** Resident set size and its peak, in MB, from /proc (Linux). */
function memory(pid: number): { rssMb: number; peakMb: number } {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (key: string) => Number(new RegExp(`${key}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
    return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
  } catch {
    return { rssMb: Number.NaN, peakMb: Number.NaN };
  }
}

/** CPU time (user + system) a process has used so far, in ms, from /proc (Linux). */
export function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat; after the ") " split they sit at 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

type TargetKind = 'direct' | 'node-proxy' | 'hono-proxy' | 'runtime-hot' | 'runtime-sdk';
type Era = 'modern' | 'legacy';

interface Case {
  client: 'raw' | 'sdk';
  target: TargetKind;
  era?: Era;
}

const CASES: Case[] = [
  { client: 'raw', target: 'direct' },
  { client: 'raw', target: 'node-proxy' },
  { client: 'raw', target: 'hono-proxy' },
  { client: 'raw', target: 'runtime-hot', era: 'modern' },
  { client: 'raw', target: 'runtime-sdk', era: 'modern' },
  { client: 'raw', target: 'runtime-hot', era: 'legacy' },
  { client: 'raw', target: 'runtime-sdk', era: 'legacy' },
  { client: 'sdk', target: 'runtime-hot', era: 'modern' },
  { client: 'sdk', target: 'runtime-sdk', era: 'modern' },
  { client: 'sdk', target: 'runtime-hot', era: 'legacy' },
  { client: 'sdk', target: 'runtime-sdk', era: 'legacy' },
];

function caseKey(c: Case, concurrency: number): string {
  return `${c.client}|${c.target}|${c.era ?? ''}|${concurrency}`;
}

export interface Tally {
  calls: number;
  elapsedMs: number;
  cpuMs: number;
  latencies: number[];
  wrong: number;
  errors: number;
  idleRssMb: number;
  peakRssMb: number;
}

export function newTally(): Tally {
  // Idle RSS is the least seen between rounds, so it starts above any.
  return {
    calls: 0,
    elapsedMs: 0,
    cpuMs: 0,
    latencies: [],
    wrong: 0,
    errors: 0,
    idleRssMb: Infinity,
    peakRssMb: 0,
  };
}

export interface RuntimeRow {
  client: 'raw' | 'sdk';
  target: TargetKind;
  era?: Era;
  concurrency: number;
  calls: number;
  perSec: number;
  p50: number;
  p99: number;
  serverCpuUs: number;
  idleRssMb: number;
  peakRssMb: number;
  wrong: number;
  errors: number;
}

/** Warm-up (WARM_CALLS in all, split over the workers), then DURATION_MS of measured calls. */
export async function drive(driver: Driver, concurrency: number, pid: number, tally: Tally): Promise<void> {
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; i < Math.ceil(WARM_CALLS / concurrency); i++)
        await driver.call(w, -1 - i).catch(() => false);
    }),
  );
  const latencies: number[] = [];
  const cpuBefore = cpuMs(pid);
  const started = performance.now();
  const deadline = started + DURATION_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let seq = 0; performance.now() < deadline; seq++) {
        const t0 = performance.now();
        try {
          if (!(await driver.call(w, seq))) tally.wrong++;
        } catch {
          tally.errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  tally.elapsedMs += performance.now() - started;
  tally.cpuMs += cpuMs(pid) - cpuBefore;
  tally.calls += latencies.length;
  for (const l of latencies) tally.latencies.push(l);
}

async function measure(
  c: Case,
  concurrency: number,
  upstream: Target,
  folder: string,
  tally: Tally,
): Promise<void> {
  const target =
    c.target === 'direct'
      ? upstream
      : c.target === 'runtime-hot' || c.target === 'runtime-sdk'
        ? await spawnTarget('runtime', folder, c.target === 'runtime-hot' ? 'hot' : 'sdk')
        : await spawnTarget(c.target, upstream.url);
  try {
    await new Promise((r) => setTimeout(r, 200));
    tally.idleRssMb = Math.min(tally.idleRssMb, memory(target.pid).rssMb);
    const driver =
      c.client === 'sdk'
        ? await sdkDriver(c.era!, target.url, concurrency)
        : await rawDriver(
            c.target === 'direct' ? 'direct' : c.target.endsWith('proxy') ? 'proxy' : c.era!,
            target.url,
            concurrency,
          );
    try {
      await drive(driver, concurrency, target.pid, tally);
    } finally {
      await driver.close();
    }
    tally.peakRssMb = Math.max(tally.peakRssMb, memory(target.pid).peakMb);
  } finally {
    if (target !== upstream) await target.stop();
  }
}

async function toolsListP50(
  url: string,
  rounds: number,
): Promise<{ ms: number; kib: number; count: number }> {
  const times: number[] = [];
  let kib = 0;
  let count = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/list',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: i,
        method: 'tools/list',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': {},
          },
        },
      }),
    });
    const text = await response.text();
    times.push(performance.now() - t0);
    kib = Buffer.byteLength(text) / 1024;
    count = (JSON.parse(text) as { result: { tools: unknown[] } }).result.tools.length;
  }
  times.sort((a, b) => a - b);
  return { ms: percentile(times, 50), kib, count };
}

export interface RuntimeBenchReport {
  rows: RuntimeRow[];
  big: {
    coldStartMs: number;
    idleRssMb: number;
    peakRssMb: number;
    toolsListHot: { ms: number; kib: number; count: number };
    toolsListSdk: { ms: number; kib: number; count: number };
  };
  aims: { name: string; value: number; aim: string; met: boolean }[];
}

/**
 * The SDK v2 client hands one AbortSignal per transport to every fetch; undici's Request adds a
 * listener to it that only garbage collection removes, so thousands of calls on one client set
 * off MaxListenersExceededWarning in this (the client) process. It is the client's, not the
 * server's: counted once and reported, not printed thousands of times.
 */
export function quietClientSignalWarnings(): () => number {
  let seen = 0;
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('AbortSignal')) seen++;
    else for (const listener of listeners) listener(warning);
  });
  return () => seen;
}

export async function runRuntimeBench(): Promise<RuntimeBenchReport> {
  const clientWarnings = quietClientSignalWarnings();
  const upstream = await spawnTarget('upstream');
  const folder1 = await writeBenchFolder(`${upstream.url}/api`, 1);
  const folder1000 = await writeBenchFolder(`${upstream.url}/api`, 1000);
  try {
    const tallies = new Map<string, Tally>();
    const tallyOf = (c: Case, n: number): Tally => {
      const key = caseKey(c, n);
      let t = tallies.get(key);
      if (!t) {
        t = newTally();
        tallies.set(key, t);
      }
      return t;
    };
    const total = ROUNDS * CONCURRENCY.length * CASES.length;
    let done = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const concurrency of CONCURRENCY) {
        const order = round % 2 === 0 ? CASES : [...CASES].reverse();
        for (const c of order) {
          await measure(c, concurrency, upstream, folder1, tallyOf(c, concurrency));
          done++;
          process.stderr.write(`\r  runtime bench: ${done}/${total} rows measured`);
        }
      }
    }
    process.stderr.write('\n');
    const rows: RuntimeRow[] = [];
    for (const concurrency of CONCURRENCY) {
      for (const c of CASES) {
        const t = tallyOf(c, concurrency);
        t.latencies.sort((a, b) => a - b);
        rows.push({
          ...c,
          concurrency,
          calls: t.calls,
          perSec: (t.calls / t.elapsedMs) * 1000,
          p50: percentile(t.latencies, 50),
          p99: percentile(t.latencies, 99),
          serverCpuUs: (t.cpuMs / t.calls) * 1000,
          idleRssMb: t.idleRssMb,
          peakRssMb: t.peakRssMb,
          wrong: t.wrong,
          errors: t.errors,
        });
      }
    }

    // 1,000 tools: cold start (spawn → listening, folder read + validated), idle RSS, tools/list,
    // and peak RSS under 16 concurrent raw 2026 calls.
    const big = await spawnTarget('runtime', folder1000, 'hot');
    let bigReport: RuntimeBenchReport['big'];
    try {
      await new Promise((r) => setTimeout(r, 300));
      const idle = memory(big.pid).rssMb;
      const toolsListHot = await toolsListP50(big.url, 30);
      const bigTally = newTally();
      const driver = await rawDriver('modern', big.url, 16);
      await drive(driver, 16, big.pid, bigTally);
      await driver.close();
      bigReport = {
        coldStartMs: big.readyMs,
        idleRssMb: idle,
        peakRssMb: memory(big.pid).peakMb,
        toolsListHot,
        toolsListSdk: { ms: Number.NaN, kib: 0, count: 0 },
      };
    } finally {
      await big.stop();
    }
    const bigSdk = await spawnTarget('runtime', folder1000, 'sdk');
    try {
      bigReport.toolsListSdk = await toolsListP50(bigSdk.url, 30);
    } finally {
      await bigSdk.stop();
    }

    const report: RuntimeBenchReport = { rows, big: bigReport, aims: aimsOf(rows, bigReport) };
    printReport(report);
    await runOpsRows(upstream, folder1);
    if (clientWarnings() > 0) {
      console.log(
        `\n(${clientWarnings()} MaxListenersExceededWarning from the SDK client's per-transport AbortSignal in the load generator, not from a server.)`,
      );
    }
    return report;
  } finally {
    await upstream.stop();
    await rm(folder1, { recursive: true, force: true });
    await rm(folder1000, { recursive: true, force: true });
  }
}

function find(
  rows: RuntimeRow[],
  client: string,
  target: TargetKind,
  era: Era | undefined,
  n: number,
): RuntimeRow {
  return rows.find(
    (r) => r.client === client && r.target === target && r.era === era && r.concurrency === n,
  )!;
}

function aimsOf(rows: RuntimeRow[], big: RuntimeBenchReport['big']): RuntimeBenchReport['aims'] {
  const aims: RuntimeBenchReport['aims'] = [];
  for (const era of ['modern', 'legacy'] as const) {
    for (const n of CONCURRENCY) {
      const hot = find(rows, 'raw', 'runtime-hot', era, n);
      const bare = find(rows, 'raw', 'hono-proxy', undefined, n);
      const label = `${era === 'modern' ? '2026-07-28' : '2025-11-25'}, ${n} client${n > 1 ? 's' : ''}`;
      aims.push({
        name: `calls/s vs Hono proxy (${label})`,
        value: hot.perSec / bare.perSec,
        aim: '≥ 0.80',
        met: hot.perSec / bare.perSec >= 0.8,
      });
      aims.push({
        name: `added p50 ms over Hono proxy (${label})`,
        value: hot.p50 - bare.p50,
        aim: '< 0.20',
        met: hot.p50 - bare.p50 < 0.2,
      });
      aims.push({
        name: `server CPU per call vs Hono proxy (${label})`,
        value: hot.serverCpuUs / bare.serverCpuUs,
        aim: '< 2.00',
        met: hot.serverCpuUs / bare.serverCpuUs < 2,
      });
    }
  }
  const wrong = rows.reduce((a, r) => a + r.wrong, 0);
  aims.push({ name: 'answers to the wrong caller (all rows)', value: wrong, aim: '0', met: wrong === 0 });
  aims.push({ name: 'idle RSS MB, 1,000 tools', value: big.idleRssMb, aim: '< 90', met: big.idleRssMb < 90 });
  aims.push({
    name: 'peak RSS MB under load, 1,000 tools',
    value: big.peakRssMb,
    aim: '< 130',
    met: big.peakRssMb < 130,
  });
  return aims;
}

const TARGET_LABEL: Record<TargetKind, string> = {
  direct: 'upstream direct',
  'node-proxy': 'bare node:http proxy',
  'hono-proxy': 'bare Hono proxy',
  'runtime-hot': 'runtime, hot path (after)',
  'runtime-sdk': 'runtime, SDK path (before)',
};

function printReport(r: RuntimeBenchReport): void {
  console.log(
    `tools/call, ${fmt(DURATION_MS / 1000, 1)} s per row × ${ROUNDS} round(s) after ${WARM_CALLS} warm-up calls, ` +
      `fresh server process per row, alternating order${QUICK ? ' (quick mode)' : ''}; every answer checked.`,
  );
  console.log(
    `machine: ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} — shared with other work: read the ratios, not the absolute figures.\n`,
  );
  console.log(
    '| client | target | era | clients | calls/s | p50 ms | p99 ms | vs Hono proxy | p50 +ms vs Hono | server CPU µs/call | CPU vs Hono | hot vs SDK path | RSS idle / peak MB | wrong | errors |',
  );
  console.log('|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of r.rows) {
    const bare = find(r.rows, 'raw', 'hono-proxy', undefined, row.concurrency);
    const versusBare = row.client === 'raw';
    const counterpart =
      row.target === 'runtime-hot' || row.target === 'runtime-sdk'
        ? find(
            r.rows,
            row.client,
            row.target === 'runtime-hot' ? 'runtime-sdk' : 'runtime-hot',
            row.era,
            row.concurrency,
          )
        : undefined;
    const hotVsSdk =
      row.target === 'runtime-hot' && counterpart ? `${fmt(row.perSec / counterpart.perSec)}x` : '';
    console.log(
      `| ${row.client} | ${TARGET_LABEL[row.target]} | ${row.era === 'modern' ? '2026-07-28' : row.era === 'legacy' ? '2025-11-25' : ''} | ${row.concurrency} | ${fmt(row.perSec, 0)} | ${fmt(row.p50, 3)} | ${fmt(row.p99, 3)} | ${
        versusBare ? `${fmt(row.perSec / bare.perSec)}x` : ''
      } | ${versusBare ? fmt(row.p50 - bare.p50, 3) : ''} | ${fmt(row.serverCpuUs, 0)} | ${
        versusBare ? `${fmt(row.serverCpuUs / bare.serverCpuUs)}x` : ''
      } | ${hotVsSdk} | ${fmt(row.idleRssMb, 0)} / ${fmt(row.peakRssMb, 0)} | ${row.wrong} | ${row.errors} |`,
    );
  }
  console.log(
    '\n"vs Hono proxy" columns compare raw-client rows with the bare Hono proxy at the same concurrency; ' +
      "SDK-client rows carry the client library's own cost and compare hot vs SDK path only. " +
      '"direct" CPU is the upstream process\'s.',
  );
  const b = r.big;
  console.log(
    `\n1,000 tools: cold start ${fmt(b.coldStartMs, 0)} ms (spawn → listening, folder read + validated); ` +
      `idle RSS ${fmt(b.idleRssMb, 1)} MB; peak RSS under 16 clients ${fmt(b.peakRssMb, 1)} MB; ` +
      `tools/list (${b.toolsListHot.count} tools, ${fmt(b.toolsListHot.kib, 0)} KiB) p50 ${fmt(b.toolsListHot.ms)} ms on the hot path, ` +
      `${fmt(b.toolsListSdk.ms)} ms on the SDK path`,
  );
  console.log('\n| aim (issue 10) | measured | target | met |');
  console.log('|---|---:|---:|---|');
  for (const aim of r.aims) {
    console.log(
      `| ${aim.name} | ${fmt(aim.value, aim.name.includes('wrong') ? 0 : 2)} | ${aim.aim} | ${aim.met ? 'yes' : 'no'} |`,
    );
  }
}

// Operations (issue 20) ---------------------------------------------------------------------

type OpsVariant = 'off' | 'metrics' | 'tracing' | 'limit';
const OPS_VARIANTS: OpsVariant[] = ['off', 'metrics', 'tracing', 'limit'];
const OPS_LABEL: Record<OpsVariant, string> = {
  off: 'all off (SVC_METRICS=0)',
  metrics: 'metrics on (the default)',
  tracing: 'tracing on, OTLP/HTTP to a loopback receiver',
  limit: 'rate limits configured, not hit',
};

export interface OpsRow {
  variant: OpsVariant;
  concurrency: number;
  perSec: number;
  p50: number;
  serverCpuUs: number;
  wrong: number;
  errors: number;
}

/**
 * The cost of the operations features on the hot path (2026-07-28, raw client): the same runtime
 * with all of them off, with metrics, with tracing exporting every span to a loopback OTLP
 * receiver (in this process, so its work is not the server's), and with per-caller and per-tool
 * limits far above the load. Fresh process per row, alternating order, as above.
 */
export async function runOpsRows(upstream?: Target, folder?: string): Promise<OpsRow[]> {
  const ownUpstream = upstream ?? (await spawnTarget('upstream'));
  const plain = folder ?? (await writeBenchFolder(`${ownUpstream.url}/api`, 1));
  const limited = await writeBenchFolder(`${ownUpstream.url}/api`, 1);
  await appendFile(
    join(limited, 'config.yaml'),
    'rateLimits:\n  perCaller: 999999999/s\n  perTool:\n    echo: 999999999/s\n',
  );
  let spansReceived = 0;
  const receiver = createServer((req, res) => {
    let bytes = 0;
    req.on('data', (c: Buffer) => {
      bytes += c.length;
    });
    req.on('end', () => {
      if (bytes > 0) spansReceived++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  const otlpUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  try {
    const tallies = new Map<string, Tally>();
    const tallyOf = (v: OpsVariant, n: number) => {
      const key = `${v}|${n}`;
      let t = tallies.get(key);
      if (!t) {
        t = newTally();
        tallies.set(key, t);
      }
      return t;
    };
    const total = ROUNDS * CONCURRENCY.length * OPS_VARIANTS.length;
    let done = 0;
    for (let round = 0; round < ROUNDS; round++) {
      for (const concurrency of CONCURRENCY) {
        const order = round % 2 === 0 ? OPS_VARIANTS : [...OPS_VARIANTS].reverse();
        for (const variant of order) {
          const target = await spawnTarget(
            'runtime',
            variant === 'limit' ? limited : plain,
            'hot',
            variant,
            otlpUrl,
          );
          try {
            await new Promise((r) => setTimeout(r, 200));
            const driver = await rawDriver('modern', target.url, concurrency);
            try {
              await drive(driver, concurrency, target.pid, tallyOf(variant, concurrency));
            } finally {
              await driver.close();
            }
          } finally {
            await target.stop();
          }
          done++;
          process.stderr.write(`\r  operations bench: ${done}/${total} rows measured`);
        }
      }
    }
    process.stderr.write('\n');
    const rows: OpsRow[] = [];
    for (const concurrency of CONCURRENCY) {
      for (const variant of OPS_VARIANTS) {
        const t = tallyOf(variant, concurrency);
        t.latencies.sort((a, b) => a - b);
        rows.push({
          variant,
          concurrency,
          perSec: (t.calls / t.elapsedMs) * 1000,
          p50: percentile(t.latencies, 50),
          serverCpuUs: (t.cpuMs / t.calls) * 1000,
          wrong: t.wrong,
          errors: t.errors,
        });
      }
    }
    console.log('\n### operations (issue 20): the hot path, 2026-07-28, raw client\n');
    console.log(
      '| runtime | clients | calls/s | vs all off | p50 ms | server CPU µs/call | CPU vs all off | wrong | errors |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const row of rows) {
      const off = rows.find((r) => r.variant === 'off' && r.concurrency === row.concurrency)!;
      console.log(
        `| ${OPS_LABEL[row.variant]} | ${row.concurrency} | ${fmt(row.perSec, 0)} | ${fmt(row.perSec / off.perSec)}x | ${fmt(row.p50, 3)} | ${fmt(row.serverCpuUs, 0)} | ${fmt(row.serverCpuUs / off.serverCpuUs)}x | ${row.wrong} | ${row.errors} |`,
      );
    }
    console.log(
      `\n(OTLP export requests received by the loopback receiver: ${spansReceived}. Aims: metrics and an unhit limit cost under 3%, tracing with export under 10%.)`,
    );
    const off16 = rows.find((r) => r.variant === 'off' && r.concurrency === 16)!;
    const unit = await perCallCosts(otlpUrl);
    console.log(
      '\nThe same costs measured in-process, per call, which a loaded machine disturbs far less than ' +
        "the rows above (µs of this process's CPU; the share is of the all-off server CPU per call at 16 clients, " +
        `${fmt(off16.serverCpuUs, 0)} µs):\n`,
    );
    console.log('| feature, per call | µs CPU | share of a call |');
    console.log('|---|---:|---:|');
    for (const [name, us] of Object.entries(unit)) {
      console.log(`| ${name} | ${fmt(us, 2)} | ${fmt((100 * us) / off16.serverCpuUs, 1)}% |`);
    }
    return rows;
  } finally {
    await new Promise<void>((r) => receiver.close(() => r()));
    await rm(limited, { recursive: true, force: true });
    if (!folder) await rm(plain, { recursive: true, force: true });
    if (!upstream) await ownUpstream.stop();
  }
}

/**
 * CPU µs per call of tracing's own work in steady state: one tracer, warmed, 20,000 calls (a request
 * span and an upstream span each) with the event loop let run every 500 calls, as a server's is, so
 * batches are serialized and sent to the receiver as they fill; the export's CPU is counted. The
 * median of three runs. (Before: 1,000 calls on a fresh tracer, its shutdown included, which
 * counted a one-time cost of ~35 ms as per-call cost.)
 */
async function tracingCost(otlpUrl: string, extra: Record<string, string>): Promise<number> {
  const { createTracing } = await import('../runtime/tracing.js');
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const tracing = createTracing({
    OTEL_EXPORTER_OTLP_ENDPOINT: otlpUrl,
    OTEL_SERVICE_NAME: 'svc-bench',
    ...extra,
  })!;
  const outcome = { status: 200, bytes: 100, result: { content: [] } };
  const calls = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const span = tracing.startRequest('tools/call echo', undefined, { 'mcp.server.id': 'bench' });
      const request = { method: 'GET', url: 'http://127.0.0.1/api/echo/r0/x', headers: {} };
      await tracing.upstream('echo', request, span.traceparent, async () => outcome);
      span.end(200);
      if (i % 500 === 499) await new Promise((r) => setImmediate(r));
    }
  };
  await calls(3000);
  const runs: number[] = [];
  for (let run = 0; run < 3; run++) {
    const before = cpu();
    await calls(20_000);
    runs.push(((cpu() - before) * 1000) / 20_000);
  }
  await tracing.shutdown();
  return runs.sort((a, b) => a - b)[1]!;
}

/** CPU µs per call of each feature's own work, in this process: metrics, an unhit limit, two spans exported. */
async function perCallCosts(otlpUrl: string): Promise<Record<string, number>> {
  const { createRuntimeMetrics } = await import('../runtime/metrics.js');
  const { createRateLimits } = await import('../runtime/rate-limit.js');
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1000;
  };
  const time = async (n: number, run: (i: number) => unknown): Promise<number> => {
    for (let i = 0; i < Math.min(n, 2000); i++) await run(i);
    const before = cpu();
    for (let i = 0; i < n; i++) await run(i);
    return ((cpu() - before) * 1000) / n;
  };
  const metrics = createRuntimeMetrics({
    server: 'bench',
    configInfo: () => ({ commit: 'c', etag: '' }),
    sessions: () => 0,
  });
  const record = {
    tool: 'echo',
    outcome: 'ok' as const,
    status: 200,
    durationMs: 0.4,
    bytes: 100,
    caller: '127.0.0.1',
    configVersion: 1,
  };
  const limits = createRateLimits();
  const config = { rateLimits: { perCaller: '999999999/s', perTool: { echo: '999999999/s' } } } as never;
  const base = {
    'metrics (3 series)': await time(200_000, () => metrics.call(record)),
    'rate limits, per caller and per tool, not hit': await time(100_000, (i) =>
      limits.check(config, 'echo', `10.0.${i % 250}.1`),
    ),
  };
  const costs: Record<string, number> = {
    ...base,
    'tracing: request + upstream span, traceparent, OTLP export': await tracingCost(otlpUrl, {}),
    'tracing configured, sampled out (OTEL_TRACES_SAMPLER=always_off)': await tracingCost(otlpUrl, {
      OTEL_TRACES_SAMPLER: 'always_off',
    }),
  };
  return costs;
}
