/**
 * The execution log end to end (contracts/operations.md): SVC_EXECUTION_LOG=<file> gets one
 * JSON line per tool call, whichever era and path served it, with the contract's fields and
 * without arguments or results (SVC_LOG_ARGUMENTS is off).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { parseRuntimeEnv, type RunningRuntime, startRuntime } from '../runtime/index.js';
import {
  copyFixtureFolder,
  type EchoUpstream,
  startEchoUpstream,
  type TempFolder,
} from '../runtime/testing/index.js';
import { connectClient } from './helpers/mcp-client.js';

let root: string;
let upstream: EchoUpstream;
let folder: TempFolder;
let runtime: RunningRuntime;
let file: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'svc-exec-'));
  file = join(root, 'calls.jsonl');
  upstream = await startEchoUpstream({ record: false });
  folder = await copyFixtureFolder('fixtures/runtime/basic', `${upstream.url}/api`);
  runtime = await startRuntime({
    env: parseRuntimeEnv({
      MCP_RUNTIME_PORT: '0',
      SVC_UPSTREAM_SECRET: 'sk-exec-e2e-1234',
      SVC_EXECUTION_LOG: file,
    }),
    folderDir: folder.dir,
    logger: { log() {} },
  });
});
afterAll(async () => {
  await runtime?.close();
  await upstream?.close();
  await folder?.remove();
  if (root) rmSync(root, { recursive: true, force: true });
});

it('writes one line per call in both eras, with the contract fields and no arguments', async () => {
  for (const era of ['modern', 'legacy'] as const) {
    const client = await connectClient(runtime.url, `exec-${era}`, era);
    await client.callTool({ name: 'echo_get', arguments: { id: 'secret-looking-arg' } });
    await client.callTool({ name: 'status', arguments: { code: 503 } });
    await client.callTool({ name: 'echo_get', arguments: {} });
    await client.close();
  }
  await runtime.close();
  const text = readFileSync(file, 'utf8');
  expect(text).not.toContain('secret-looking-arg');
  const lines = text
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(lines.map((l) => [l.tool, l.outcome, l.status])).toEqual([
    ['echo_get', 'ok', 200],
    ['status', 'upstream_error', 503],
    ['echo_get', 'invalid', null],
    ['echo_get', 'ok', 200],
    ['status', 'upstream_error', 503],
    ['echo_get', 'invalid', null],
  ]);
  for (const line of lines) {
    expect(Object.keys(line).sort()).toEqual(
      [
        'bytes',
        'caller',
        'configCommit',
        'configVersion',
        'durationMs',
        'event',
        'outcome',
        'status',
        'time',
        'tool',
        'traceId',
      ].sort(),
    );
    expect(line.caller).toBe('127.0.0.1');
    expect(line.configCommit).toMatch(/^[0-9a-f]{12}$/);
    expect(line.durationMs).toBeGreaterThanOrEqual(0);
    expect(Number.isNaN(Date.parse(line.time))).toBe(false);
  }
  expect(lines[0].bytes).toBeGreaterThan(0);
});
