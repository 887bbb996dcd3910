/**
 * Runtime benchmark (issue 3): tools/call throughput and latency through the runtime, through
 * a bare Hono pass-through proxy and against the upstream directly, with 1 and 16 concurrent
 * clients (each its own session, unique arguments per call, every answer checked to belong to
 * its caller); cold start and tools/list with 1,000 tools; RSS idle and under load; the cost
 * of building one McpServer for a stateless request. Each server runs in its own process; the
 * load generator speaks raw HTTP/JSON-RPC so it measures the server, not a client library.
 * Reports figures and ratios against the aims; asserts nothing.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { readFolder } from '../folder/index.js';
import { loadFolder } from '../folder/index.js';
import { createConfigStore } from '../runtime/config-store.js';
import { buildMcpServer } from '../runtime/mcp-server.js';
import { createRedactor } from '../runtime/redact.js';
import { nodeHttpTransport } from '../runtime/upstream-transport.js';
import { writeBenchFolder } from './runtime/bench-folder.js';

const TARGETS = fileURLToPath(new URL('./runtime/targets.js', import.meta.url));
const DURATION_MS = Number(process.env.BENCH_RUNTIME_MS ?? 3000);
const WARMUP_CALLS = 300;

interface Target {
  url: string;
  pid: number;
  child: ChildProcess;
  readyMs: number;
  stop(): Promise<void>;
}

async function spawnTarget(kind: string, arg?: string): Promise<Target> {
  const started = performance.now();
  const child = spawn(process.execPath, [TARGETS, kind, ...(arg ? [arg] : [])], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (d: Buffer) => {
      buffer += d.toString();
      const line = buffer.split('\n')[0];
      if (buffer.includes('\n') && line) resolve((JSON.parse(line) as { url: string }).url);
    });
    child.once('exit', (code) => reject(new Error(`${kind} exited with ${code}`)));
  });
  const readyMs = performance.now() - started;
  return {
    url,
    pid: child.pid!,
    child,
    readyMs,
    stop: () =>
      new Promise<void>((resolve) => {
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
function cpuMs(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    // utime and stime are fields 14 and 15 of stat; after the ") " split they sit at 11 and 12.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return Number.NaN;
  }
}

type Call = (worker: number, seq: number) => Promise<boolean>;

interface RunResult {
  /** CPU the measured server process spent per call, µs (load-independent where wall time is not). */
  serverCpuUs?: number;
  calls: number;
  wrong: number;
  errors: number;
  perSec: number;
  p50: number;
  p99: number;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function drive(concurrency: number, call: Call, serverPid?: number): Promise<RunResult> {
  // Warm-up: JIT, connection pools, lazily compiled validators.
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let i = 0; i < Math.ceil(WARMUP_CALLS / concurrency); i++) await call(w, -1 - i);
    }),
  );
  const latencies: number[] = [];
  let wrong = 0;
  let errors = 0;
  const cpuBefore = serverPid ? cpuMs(serverPid) : Number.NaN;
  const started = performance.now();
  const deadline = started + DURATION_MS;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, w) => {
      for (let seq = 0; performance.now() < deadline; seq++) {
        const t0 = performance.now();
        try {
          if (!(await call(w, seq))) wrong++;
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - started;
  const cpu = serverPid ? cpuMs(serverPid) - cpuBefore : Number.NaN;
  latencies.sort((a, b) => a - b);
  return {
    serverCpuUs: (cpu / latencies.length) * 1000,
    calls: latencies.length,
    wrong,
    errors,
    perSec: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

function uniqueId(worker: number, seq: number): string {
  return `w${worker}-s${seq}-${Math.random().toString(36).slice(2, 10)}`;
}

function pathOf(bodyText: string): string | undefined {
  try {
    return (JSON.parse(bodyText) as { path?: string }).path;
  } catch {
    return undefined;
  }
}

/** The JSON-RPC message in a Streamable HTTP answer (JSON body or the last SSE data line). */
async function rpcResult(
  response: Response,
): Promise<{ result?: { content?: { text?: string }[] }; id?: unknown }> {
  const text = await response.text();
  if ((response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const data = text
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => l.slice(6))
      .filter((l) => l.trim() !== '');
    return JSON.parse(data.at(-1) ?? '{}');
  }
  return JSON.parse(text);
}

const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'bench', version: '1' },
  'io.modelcontextprotocol/clientCapabilities': {},
};
const MCP_HEADERS = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };

function modernCall(url: string): Call {
  return async (worker, seq) => {
    const id = uniqueId(worker, seq);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        ...MCP_HEADERS,
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'tools/call',
        'mcp-name': 'echo',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: seq,
        method: 'tools/call',
        params: { name: 'echo', arguments: { id }, _meta: MODERN_META },
      }),
    });
    const message = await rpcResult(response);
    return pathOf(message.result?.content?.[0]?.text ?? '') === `/api/echo/r0/${id}` && message.id === seq;
  };
}

async function openLegacySession(url: string): Promise<string> {
  const init = await fetch(url, {
    method: 'POST',
    headers: MCP_HEADERS,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: '2025-11-25',
        capabilities: {},
        clientInfo: { name: 'bench', version: '1' },
      },
    }),
  });
  await init.text();
  const session = init.headers.get('mcp-session-id');
  if (!session) throw new Error('no session id');
  await fetch(url, {
    method: 'POST',
    headers: { ...MCP_HEADERS, 'mcp-session-id': session, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  }).then((r) => r.text());
  return session;
}

async function legacyCall(url: string, concurrency: number): Promise<Call> {
  const sessions = await Promise.all(Array.from({ length: concurrency }, () => openLegacySession(url)));
  return async (worker, seq) => {
    const id = uniqueId(worker, seq);
    const rpcId = seq + 1_000_000;
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-session-id': sessions[worker]!, 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: rpcId,
        method: 'tools/call',
        params: { name: 'echo', arguments: { id } },
      }),
    });
    const message = await rpcResult(response);
    return pathOf(message.result?.content?.[0]?.text ?? '') === `/api/echo/r0/${id}` && message.id === rpcId;
  };
}

function directCall(upstream: string): Call {
  return async (worker, seq) => {
    const id = uniqueId(worker, seq);
    const response = await fetch(`${upstream}/api/echo/r0/${id}`);
    return pathOf(await response.text()) === `/api/echo/r0/${id}`;
  };
}

function bareCall(bare: string): Call {
  return async (worker, seq) => {
    const id = uniqueId(worker, seq);
    const response = await fetch(`${bare}/call/${id}`, { method: 'POST' });
    return pathOf(await response.text()) === `/api/echo/items/${id}`;
  };
}

async function toolsListMs(
  url: string,
  rounds: number,
): Promise<{ ms: number; bytes: number; count: number }> {
  const times: number[] = [];
  let bytes = 0;
  let count = 0;
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const response = await fetch(url, {
      method: 'POST',
      headers: { ...MCP_HEADERS, 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list' },
      body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list', params: { _meta: MODERN_META } }),
    });
    const text = await response.text();
    times.push(performance.now() - t0);
    bytes = Buffer.byteLength(text);
    count = (JSON.parse(text) as { result: { tools: unknown[] } }).result.tools.length;
  }
  times.sort((a, b) => a - b);
  return { ms: percentile(times, 50), bytes, count };
}

function fmt(n: number, digits = 2): string {
  return Number.isFinite(n) ? n.toFixed(digits) : 'n/a';
}

export interface RuntimeBenchReport {
  rows: { target: string; concurrency: number; result: RunResult }[];
  coldStartMs: { tools1: number; tools1000: number };
  toolsList1000: { ms: number; bytes: number; count: number };
  rssMb: { idle: number; idle1000: number; underLoadPeak: number; bareProxyIdle: number };
  buildServerUs: number;
  aims: Record<string, { value: number; aim: string; met: boolean }>;
}

export async function runRuntimeBench(): Promise<RuntimeBenchReport> {
  const upstream = await spawnTarget('upstream');
  const folder1 = await writeBenchFolder(`${upstream.url}/api`, 1);
  const folder1000 = await writeBenchFolder(`${upstream.url}/api`, 1000);
  const cleanups: (() => Promise<unknown>)[] = [
    () => upstream.stop(),
    () => rm(folder1, { recursive: true, force: true }),
    () => rm(folder1000, { recursive: true, force: true }),
  ];
  try {
    const bare = await spawnTarget('bare', upstream.url);
    cleanups.unshift(() => bare.stop());
    const runtime = await spawnTarget('runtime', folder1);
    cleanups.unshift(() => runtime.stop());
    await new Promise((r) => setTimeout(r, 300));
    const idle = memory(runtime.pid).rssMb;
    const bareIdle = memory(bare.pid).rssMb;

    const rows: RuntimeBenchReport['rows'] = [];
    for (const concurrency of [1, 16]) {
      rows.push({
        target: 'direct upstream',
        concurrency,
        result: await drive(concurrency, directCall(upstream.url), upstream.pid),
      });
      rows.push({
        target: 'bare Hono proxy',
        concurrency,
        result: await drive(concurrency, bareCall(bare.url), bare.pid),
      });
      rows.push({
        target: 'runtime 2026-07-28',
        concurrency,
        result: await drive(concurrency, modernCall(runtime.url), runtime.pid),
      });
      rows.push({
        target: 'runtime 2025-11-25 sessions',
        concurrency,
        result: await drive(concurrency, await legacyCall(runtime.url, concurrency), runtime.pid),
      });
    }
    const underLoadPeak = memory(runtime.pid).peakMb;

    // Cold start: process spawn → listening, with the folder read and validated from disk.
    const big = await spawnTarget('runtime', folder1000);
    cleanups.unshift(() => big.stop());
    await new Promise((r) => setTimeout(r, 300));
    const idle1000 = memory(big.pid).rssMb;
    const toolsList1000 = await toolsListMs(big.url, 20);

    // In-process: the per-request cost of a fresh McpServer for a stateless request.
    const loaded = loadFolder(await readFolder(folder1000));
    let buildServerUs = Number.NaN;
    if (loaded.ok) {
      const store = createConfigStore(loaded.folder);
      const deps = {
        transport: nodeHttpTransport,
        logger: { log() {} },
        redact: createRedactor([]),
        timeoutMs: 1000,
        maxResponseBytes: 1 << 20,
        now: () => performance.now(),
      };
      for (let i = 0; i < 1000; i++) buildMcpServer(store.current(), deps);
      const n = 20_000;
      const t0 = performance.now();
      for (let i = 0; i < n; i++) buildMcpServer(store.current(), deps);
      buildServerUs = ((performance.now() - t0) / n) * 1000;
    }

    const find = (target: string, c: number) =>
      rows.find((r) => r.target === target && r.concurrency === c)!.result;
    const direct1 = find('direct upstream', 1);
    const bare1 = find('bare Hono proxy', 1);
    const modern1 = find('runtime 2026-07-28', 1);
    const legacy1 = find('runtime 2025-11-25 sessions', 1);
    const wrongTotal = rows.reduce((a, r) => a + r.result.wrong, 0);
    const aims: RuntimeBenchReport['aims'] = {
      'sequential calls/s vs direct (2026 stateless)': {
        value: modern1.perSec / direct1.perSec,
        aim: '≥ 0.50',
        met: modern1.perSec / direct1.perSec >= 0.5,
      },
      'sequential calls/s vs direct (2025 sessions)': {
        value: legacy1.perSec / direct1.perSec,
        aim: '≥ 0.50',
        met: legacy1.perSec / direct1.perSec >= 0.5,
      },
      'sequential calls/s vs bare proxy (2026 stateless)': {
        value: modern1.perSec / bare1.perSec,
        aim: '≥ 0.80',
        met: modern1.perSec / bare1.perSec >= 0.8,
      },
      'sequential calls/s vs bare proxy (2025 sessions)': {
        value: legacy1.perSec / bare1.perSec,
        aim: '≥ 0.80',
        met: legacy1.perSec / bare1.perSec >= 0.8,
      },
      'added p50 ms vs bare proxy (2026 stateless)': {
        value: modern1.p50 - bare1.p50,
        aim: '< 0.5',
        met: modern1.p50 - bare1.p50 < 0.5,
      },
      'answers to the wrong caller': { value: wrongTotal, aim: '0', met: wrongTotal === 0 },
      'RSS idle MB (1 tool)': { value: idle, aim: '< 80', met: idle < 80 },
    };
    const report: RuntimeBenchReport = {
      rows,
      coldStartMs: { tools1: runtime.readyMs, tools1000: big.readyMs },
      toolsList1000,
      rssMb: { idle, idle1000, underLoadPeak, bareProxyIdle: bareIdle },
      buildServerUs,
      aims,
    };
    printReport(report);
    return report;
  } finally {
    for (const cleanup of cleanups) await cleanup().catch(() => {});
  }
}

function printReport(r: RuntimeBenchReport): void {
  const direct = (c: number) =>
    r.rows.find((x) => x.target === 'direct upstream' && x.concurrency === c)!.result;
  const bare = (c: number) =>
    r.rows.find((x) => x.target === 'bare Hono proxy' && x.concurrency === c)!.result;
  console.log(
    `tools/call, ${DURATION_MS / 1000} s per row after ${WARMUP_CALLS} warm-up calls; every answer checked. ` +
      'Server CPU = CPU time of the measured server process alone (the upstream for "direct"), per call.',
  );
  console.log(
    `machine: ${os.cpus().length} CPUs, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')}\n`,
  );
  console.log(
    '| target | clients | calls/s | p50 ms | p99 ms | vs direct | vs bare | server CPU µs/call | wrong caller | errors |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { target, concurrency, result } of r.rows) {
    console.log(
      `| ${target} | ${concurrency} | ${fmt(result.perSec, 0)} | ${fmt(result.p50, 3)} | ${fmt(result.p99, 3)} | ${fmt(
        result.perSec / direct(concurrency).perSec,
      )}x | ${fmt(result.perSec / bare(concurrency).perSec)}x | ${fmt(result.serverCpuUs ?? Number.NaN, 0)} | ${
        result.wrong
      } | ${result.errors} |`,
    );
  }
  console.log('');
  console.log(
    `cold start (spawn → listening, folder read + validated): 1 tool ${fmt(r.coldStartMs.tools1, 0)} ms, 1,000 tools ${fmt(r.coldStartMs.tools1000, 0)} ms`,
  );
  console.log(
    `tools/list with ${r.toolsList1000.count} tools: p50 ${fmt(r.toolsList1000.ms)} ms, ${fmt(r.toolsList1000.bytes / 1024, 0)} KiB`,
  );
  console.log(`fresh McpServer per stateless request: ${fmt(r.buildServerUs, 1)} µs`);
  console.log(
    `RSS: idle ${fmt(r.rssMb.idle, 1)} MB (1 tool), idle ${fmt(r.rssMb.idle1000, 1)} MB (1,000 tools), ` +
      `peak under load ${fmt(r.rssMb.underLoadPeak, 1)} MB; the bare Hono proxy idles at ${fmt(r.rssMb.bareProxyIdle, 1)} MB`,
  );
  console.log('\n| aim | measured | target | met |');
  console.log('|---|---:|---:|---|');
  for (const [name, aim] of Object.entries(r.aims)) {
    console.log(
      `| ${name} | ${fmt(aim.value, name.includes('wrong') ? 0 : 2)} | ${aim.aim} | ${aim.met ? 'yes' : 'no'} |`,
    );
  }
}
