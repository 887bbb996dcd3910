/**
 * Metrics end to end (contracts/operations.md): Debian's real `prometheus` scrapes GET /metrics
 * of a runtime and of a control service on loopback (with SVC_METRICS_TOKEN as the bearer
 * token), after real MCP calls in both eras and a real sync poll the control service refuses;
 * the series are read back through Prometheus's own query API. `.ci/run` installs prometheus;
 * without it the test is skipped with a warning, as the Chromium tests are.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningControl, startControl } from '../control/index.js';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

const PROMETHEUS = '/usr/bin/prometheus';
const missing = existsSync(PROMETHEUS)
  ? undefined
  : `${PROMETHEUS} is not installed (apt-get install prometheus)`;
if (missing) console.warn(`prometheus metrics: skipped: ${missing}`);

const TOKEN = 'metrics-token-0a9b8c7d';
let root: string;
let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let control: RunningControl;
let prometheus: ChildProcess | undefined;
let promUrl: string;
let promLog = '';

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

async function query(expr: string): Promise<Sample[]> {
  const response = await fetch(`${promUrl}/api/v1/query?query=${encodeURIComponent(expr)}`);
  const body = (await response.json()) as { status: string; data?: { result: Sample[] } };
  return body.status === 'success' ? (body.data?.result ?? []) : [];
}

/** Polls Prometheus until `expr` returns samples `ready` accepts (bounded: 30 s). */
async function until(expr: string, ready: (samples: Sample[]) => boolean): Promise<Sample[]> {
  const deadline = Date.now() + 30_000;
  let last: Sample[] = [];
  while (Date.now() < deadline) {
    last = await query(expr).catch(() => []);
    if (ready(last)) return last;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(
    `${expr} never became ready; last: ${JSON.stringify(last)}\nprometheus: ${promLog.slice(-2000)}`,
  );
}

const value = (samples: Sample[], labels: Record<string, string>) =>
  Number(
    samples.find((s) => Object.entries(labels).every(([k, v]) => s.metric[k] === v))?.value[1] ?? Number.NaN,
  );

describe.skipIf(missing !== undefined)('Prometheus scrapes the runtime and the control service', () => {
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'svc-prometheus-'));
    upstream = await startEchoUpstream({ record: false });
    folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
    const port = await freePort();
    promUrl = `http://127.0.0.1:${port}`;
    control = await startControl({
      port: 0,
      dataDir: join(root, 'control'),
      metricsToken: TOKEN,
      prometheusUrl: promUrl,
      logger: { log() {} },
    });
    runtime = await startRuntime({
      env: parseRuntimeEnv({
        MCP_RUNTIME_PORT: '0',
        SVC_UPSTREAM_SECRET: 'sk-prom-5e6f7a8b',
        SVC_METRICS_TOKEN: TOKEN,
        // A deploy token the control service does not know: every poll is refused (a sync failure).
        SVC_SYNC_URL: control.url,
        SVC_DEPLOY_TOKEN: 'svc_dpl_unknown',
      }),
      folderDir: folder.dir,
      syncIntervalMs: 300,
      logger: { log() {} },
    });
    const config = join(root, 'prometheus.yml');
    const target = (url: string) => new URL(url).host;
    writeFileSync(
      config,
      [
        'global: { scrape_interval: 1s, scrape_timeout: 1s }',
        'scrape_configs:',
        '  - job_name: runtime',
        `    authorization: { credentials: ${TOKEN} }`,
        `    static_configs: [{ targets: ['${target(runtime.url)}'] }]`,
        '  - job_name: control',
        `    authorization: { credentials: ${TOKEN} }`,
        `    static_configs: [{ targets: ['${target(control.url)}'] }]`,
        '',
      ].join('\n'),
    );
    prometheus = spawn(
      PROMETHEUS,
      [
        `--config.file=${config}`,
        `--storage.tsdb.path=${join(root, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    prometheus.stdout?.on('data', (d: Buffer) => (promLog += d.toString()));
    prometheus.stderr?.on('data', (d: Buffer) => (promLog += d.toString()));
  }, 60_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((r) => prometheus?.once('exit', r));
      prometheus.kill('SIGTERM');
      await exited;
    }
    await runtime?.close();
    await control?.close();
    await upstream?.close();
    await folder?.remove();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('refuses GET /metrics without the token', async () => {
    expect((await fetch(`${new URL(runtime.url).origin}/metrics`)).status).toBe(401);
    expect((await fetch(`${control.url}/metrics`)).status).toBe(401);
    const ok = await fetch(`${new URL(runtime.url).origin}/metrics`, {
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain('# TYPE svc_tool_calls_total counter');
  });

  it('has the call, upstream, config, sync and control series after real calls', async () => {
    const modern = await connectClient(runtime.url, 'prom-modern', 'modern');
    const legacy = await connectClient(runtime.url, 'prom-legacy', 'legacy');
    try {
      for (const client of [modern, legacy]) {
        expect((await client.callTool({ name: 'echo_get', arguments: { id: 'a' } })).isError).toBeFalsy();
        expect((await client.callTool({ name: 'status', arguments: { code: 404 } })).isError).toBe(true);
        expect((await client.callTool({ name: 'echo_get', arguments: {} })).isError).toBe(true);
      }
      // Seen by Prometheus while the legacy session is still open.
      await until('svc_sessions{job="runtime"}', (s) => value(s, {}) >= 1);
    } finally {
      await modern.close();
      await legacy.close();
    }

    const calls = await until(
      'svc_tool_calls_total{job="runtime"}',
      (s) => value(s, { tool: 'echo_get', outcome: 'invalid' }) === 2,
    );
    expect(value(calls, { tool: 'echo_get', outcome: 'ok' })).toBe(2);
    expect(value(calls, { tool: 'status', outcome: 'upstream_error' })).toBe(2);

    const upstreamAnswers = await until('svc_upstream_responses_total', (s) => s.length >= 2);
    expect(value(upstreamAnswers, { tool: 'echo_get', status: '200' })).toBe(2);
    expect(value(upstreamAnswers, { tool: 'status', status: '404' })).toBe(2);

    const histogram = await until(
      'svc_tool_call_duration_seconds_count{tool="echo_get"}',
      (s) => s.length === 1,
    );
    expect(value(histogram, {})).toBe(4);

    const info = await until('svc_config_info', (s) => s.length === 1);
    expect(info[0]?.metric.commit).toMatch(/^[0-9a-f]{12}$/);

    // The runtime's polls are refused (unknown deploy token): failures on both sides.
    await until('svc_sync_failures_total', (s) => value(s, {}) >= 1);
    await until('svc_control_snapshot_polls_total', (s) => value(s, { status: '401' }) >= 1);

    // A webhook whose signature does not verify.
    const hook = await fetch(`${control.url}/v1/hooks/generic/nope`, { method: 'POST', body: '{}' });
    expect(hook.status).toBe(401);
    await until(
      'svc_control_webhook_deliveries_total',
      (s) => value(s, { source: 'generic', result: 'bad_signature' }) === 1,
    );

    // Both targets are up, scraped with the bearer token.
    const up = await until('up', (s) => s.length === 2 && s.every((x) => x.value[1] === '1'));
    expect(up.map((s) => s.metric.job).sort()).toEqual(['control', 'runtime']);
  }, 60_000);

  it("shows calls, errors and p95 per server on the control service's servers page", async () => {
    const pat = (await control.store.createWorkspaceToken('ops-panel')).token;
    // Counters that first appear already counted show no increase: these calls come after.
    await until('svc_tool_calls_total{job="runtime"}', (s) => s.length > 0);
    const client = await connectClient(runtime.url, 'prom-panel', 'modern');
    try {
      await client.callTool({ name: 'echo_get', arguments: { id: 'p' } });
      await client.callTool({ name: 'status', arguments: { code: 500 } });
    } finally {
      await client.close();
    }
    const row = async () => {
      const page = await (
        await fetch(`${control.url}/servers`, { headers: { authorization: `Bearer ${pat}` } })
      ).text();
      return /<tr data-runtime-server="echo-api"><td><code>echo-api<\/code><\/td><td>(\d+)<\/td><td>(\d+)[^<]*<\/td><td>(\d+ ms|–)<\/td><\/tr>/.exec(
        page,
      );
    };
    const deadline = Date.now() + 30_000;
    let found = await row();
    while (Date.now() < deadline && !(found && Number(found[1]) > 0 && Number(found[2]) > 0)) {
      await new Promise((r) => setTimeout(r, 250));
      found = await row();
    }
    expect(found, 'the panel row of echo-api').not.toBeNull();
    expect(Number(found![1])).toBeGreaterThan(0);
    expect(Number(found![2])).toBeGreaterThan(0);
    expect(found![3]).toMatch(/^\d+ ms$/);
  }, 60_000);
});
