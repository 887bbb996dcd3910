/**
 * `svc diff` on two real 1,000-endpoint documents: GitHub's REST description, release 22.0.0
 * (fixtures/reimport, 1,108 operations) and the installed @octokit/openapi (1,223). Measures
 * the whole command (read, parse, endpoints, tools, merge, render, diff, report; nothing
 * written), the per-endpoint diff stage alone, and a real re-import, each as a median, with
 * the peak resident memory of the process during the runs.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { diffEndpoints } from '../generator/diff/index.js';
import { toEndpoints } from '../generator/endpoints/index.js';
import { importFolder } from '../generator/import/index.js';
import { parseDocument } from '../generator/parse/index.js';
import type { SvcConfig } from '../schemas/types.js';
import { type LevelCounts, runDiffLevels } from './diff-levels.js';

export interface DiffBenchResult {
  endpointsBefore: number;
  endpointsAfter: number;
  added: number;
  removed: number;
  changed: number;
  breaking: number;
  svcDiffMedianMs: number;
  diffStageMedianMs: number;
  reimportMs: number;
  idempotentReimportMs: number;
  peakRssMb: number;
  levels: LevelCounts[];
}

function repoRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('package.json not found above the bench');
    dir = up;
  }
  return dir;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Samples resident memory while `fn` runs; returns its duration too. */
async function measure<T>(fn: () => Promise<T> | T): Promise<{ ms: number; peakRss: number; value: T }> {
  (globalThis as { gc?: () => void }).gc?.();
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  const start = performance.now();
  try {
    const value = await fn();
    const ms = performance.now() - start;
    peak = Math.max(peak, process.memoryUsage().rss);
    return { ms, peakRss: peak, value };
  } finally {
    clearInterval(timer);
  }
}

export async function runDiffBench(): Promise<DiffBenchResult | undefined> {
  const root = repoRoot();
  const older = path.join(root, 'fixtures', 'reimport', 'api.github.com-22.0.0.json.gz');
  const newer = path.join(root, 'node_modules', '@octokit', 'openapi', 'generated', 'api.github.com.json');
  if (!existsSync(newer) || !existsSync(older)) {
    console.log('diff bench skipped: @octokit/openapi or the 22.0.0 fixture is missing');
    return undefined;
  }
  const work = await mkdtemp(path.join(tmpdir(), 'svc-diff-bench-'));
  try {
    const oldText = gunzipSync(await readFile(older)).toString('utf8');
    await writeFile(path.join(work, 'old.json'), oldText);
    const dir = path.join(work, 'gh');
    const config: SvcConfig = {
      schemaVersion: 1,
      server: { id: 'github', name: 'Default', published: false },
      app: { name: 'GitHub', provider: 'openapi' },
      source: { kind: 'openapi', location: '../old.json' },
      auth: { mode: 'bearer', hasAuthSecret: true },
      apiBaseUrl: '',
      requiredEnv: ['SVC_UPSTREAM_SECRET'],
    };
    const first = await importFolder({ dir, config });
    if (first.status !== 'complete') throw first.error ?? new Error('first import failed');

    let peakRss = 0;
    const diffRuns: number[] = [];
    let report = first.report;
    for (let i = 0; i < 3; i++) {
      const run = await measure(() => importFolder({ dir, location: newer, dryRun: true }));
      if (run.value.status !== 'complete') throw run.value.error ?? new Error('svc diff failed');
      report = run.value.report;
      diffRuns.push(run.ms);
      peakRss = Math.max(peakRss, run.peakRss);
    }

    const newText = await readFile(newer, 'utf8');
    const before = toEndpoints(await parseDocument({ text: oldText, origin: older, bytes: oldText.length }));
    const after = toEndpoints(await parseDocument({ text: newText, origin: newer, bytes: newText.length }));
    const stageRuns: number[] = [];
    for (let i = 0; i < 5; i++) stageRuns.push((await measure(() => diffEndpoints(before, after))).ms);

    const reimport = await measure(() => importFolder({ dir, location: newer }));
    const again = await measure(() => importFolder({ dir, location: newer }));
    peakRss = Math.max(peakRss, reimport.peakRss, again.peakRss);
    if (again.value.changed) throw new Error('re-importing the same document changed the folder');

    const e = report.counts.endpoints;
    const result: DiffBenchResult = {
      endpointsBefore: e.before,
      endpointsAfter: e.after,
      added: e.added,
      removed: e.removed,
      changed: e.changed,
      breaking: e.breaking,
      svcDiffMedianMs: Math.round(median(diffRuns)),
      diffStageMedianMs: Math.round(median(stageRuns)),
      reimportMs: Math.round(reimport.ms),
      idempotentReimportMs: Math.round(again.ms),
      peakRssMb: Math.round(peakRss / 2 ** 20),
      levels: [],
    };
    console.log(`GitHub REST description 22.0.0 (${e.before} endpoints) → installed (${e.after} endpoints)`);
    console.log(`  report: ${report.summary}`);
    console.log('');
    console.log('| measure | median |');
    console.log('|---|---:|');
    console.log(`| svc diff (whole command, dry run, 3 runs) | ${result.svcDiffMedianMs} ms |`);
    console.log(`| per-endpoint diff stage alone (5 runs) | ${result.diffStageMedianMs} ms |`);
    console.log(`| svc import (re-import, writes the folder) | ${result.reimportMs} ms |`);
    console.log(`| svc import again (same document, idempotent) | ${result.idempotentReimportMs} ms |`);
    console.log(`| peak RSS during the runs | ${result.peakRssMb} MB |`);
    result.levels = await runDiffLevels(root);
    return result;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}
