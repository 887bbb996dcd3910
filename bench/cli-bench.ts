/**
 * How fast `svc` starts: the median wall time and peak resident memory of `node -e 0`,
 * `svc --version`, `svc help` and `svc init` of Petstore, each a fresh process, runs of the
 * commands interleaved so that a busy machine slows them alike, with the ratio to bare node.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageRoot } from '../core/package-root.js';

export interface StartupFigure {
  label: string;
  medianMs: number;
  medianRssMb: number;
  /** User + system CPU time of the process: what wall time would be on an idle machine, near enough. */
  medianCpuMs: number;
}

/** Prints the process's peak RSS and CPU time on exit; loaded with --import into every measured process alike. */
const EXIT_HOOK =
  'data:text/javascript,process.on("exit",()=>{const u=process.resourceUsage();process.stderr.write("\\nmaxrss-kb="+u.maxRSS+" cpu-us="+(u.userCPUTime+u.systemCPUTime)+"\\n")})';

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

interface Case {
  label: string;
  /** Arguments after `node --import <hook>`; a fresh working directory for each run. */
  args: (cwd: string) => string[];
}

function runOnce(c: Case): { ms: number; rssKb: number; cpuMs: number } {
  const cwd = mkdtempSync(path.join(tmpdir(), 'svc-cli-bench-'));
  try {
    const start = performance.now();
    const run = spawnSync(process.execPath, ['--import', EXIT_HOOK, ...c.args(cwd)], {
      cwd,
      encoding: 'utf8',
    });
    const ms = performance.now() - start;
    const usage = /maxrss-kb=(\d+) cpu-us=(\d+)/.exec(run.stderr);
    if (run.status !== 0 || !usage) {
      throw new Error(`${c.label} failed (exit ${run.status}):\n${run.stdout}\n${run.stderr}`);
    }
    return { ms, rssKb: Number(usage[1]), cpuMs: Number(usage[2]) / 1000 };
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

/** Runs each case `runs` times, interleaved, and returns the medians in the order given. */
export function measureStartup(cli: string, runs: number, withInit = true): StartupFigure[] {
  const petstore = path.join(packageRoot(), 'fixtures/specs/petstore-3.0.yaml');
  const cases: Case[] = [
    { label: 'node -e 0', args: () => ['-e', '0'] },
    { label: 'svc --version', args: () => [cli, '--version'] },
    { label: 'svc help', args: () => [cli, 'help'] },
    ...(withInit
      ? [
          {
            label: 'svc init <petstore>',
            args: (cwd: string) => [
              cli,
              'init',
              path.join(cwd, 'pet'),
              '--name',
              'Petstore',
              '--openapi',
              petstore,
            ],
          },
        ]
      : []),
  ];
  const samples = cases.map(() => ({ ms: [] as number[], rssKb: [] as number[], cpuMs: [] as number[] }));
  for (let i = 0; i < runs; i++) {
    cases.forEach((c, k) => {
      const { ms, rssKb, cpuMs } = runOnce(c);
      samples[k]?.ms.push(ms);
      samples[k]?.rssKb.push(rssKb);
      samples[k]?.cpuMs.push(cpuMs);
    });
  }
  return cases.map((c, k) => ({
    label: c.label,
    medianMs: median(samples[k]?.ms ?? []),
    medianRssMb: median(samples[k]?.rssKb ?? []) / 1024,
    medianCpuMs: median(samples[k]?.cpuMs ?? []),
  }));
}

export async function runCliBench(): Promise<StartupFigure[]> {
  const cli = fileURLToPath(new URL('../cli/main.js', import.meta.url));
  const runs = Number(process.env.SVC_BENCH_RUNS ?? 15);
  const figures = measureStartup(cli, runs);
  const bare = figures[0];
  console.log(`${runs} runs each, interleaved; medians.\n`);
  console.log('| command | wall ms | × node | + ms over node | CPU ms | RSS MB |');
  console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
  for (const f of figures) {
    const ratio = bare ? f.medianMs / bare.medianMs : Number.NaN;
    const over = bare ? f.medianMs - bare.medianMs : Number.NaN;
    console.log(
      `| ${f.label} | ${f.medianMs.toFixed(0)} | ${ratio.toFixed(2)} | ${over.toFixed(0)} | ${f.medianCpuMs.toFixed(0)} | ${f.medianRssMb.toFixed(1)} |`,
    );
  }
  return figures;
}
