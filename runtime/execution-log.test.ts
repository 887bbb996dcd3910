import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createExecutionLog, EXECUTION_LOG_KEEP } from './execution-log.js';
import { createRedactor } from './redact.js';
import type { CallRecord } from './tool-call.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const record: CallRecord = {
  tool: 'echo_get',
  outcome: 'ok',
  status: 200,
  durationMs: 12.345,
  bytes: 42,
  caller: '127.0.0.1',
  traceId: '0af7651916cd43dd8448eb211c80319c',
  configVersion: 3,
};
const result = { content: [{ type: 'text' as const, text: 'the key is sk-exec-12345678' }] };

describe('execution log', () => {
  it('writes one redacted JSON line per call, arguments and result only when asked', () => {
    const redact = createRedactor(['sk-exec-12345678']);
    const plain: string[] = [];
    const full: string[] = [];
    const now = () => Date.UTC(2026, 10, 26, 12, 0, 0);
    createExecutionLog({
      target: 'stdout',
      maxBytes: 1 << 20,
      logArguments: false,
      redact,
      now,
      write: (l) => plain.push(l),
    }).record(record, 'abc123def456', { id: 'sk-exec-12345678' }, result);
    createExecutionLog({
      target: 'stdout',
      maxBytes: 1 << 20,
      logArguments: true,
      redact,
      now,
      write: (l) => full.push(l),
    }).record(record, 'abc123def456', { id: 'sk-exec-12345678' }, result);
    expect(plain).toHaveLength(1);
    expect(plain[0]?.endsWith('\n')).toBe(true);
    expect(JSON.parse(plain[0]!)).toEqual({
      time: '2026-11-26T12:00:00.000Z',
      event: 'tool_call',
      tool: 'echo_get',
      outcome: 'ok',
      status: 200,
      durationMs: 12.3,
      bytes: 42,
      caller: '127.0.0.1',
      traceId: '0af7651916cd43dd8448eb211c80319c',
      configVersion: 3,
      configCommit: 'abc123def456',
    });
    const logged = JSON.parse(full[0]!);
    expect(logged.arguments).toEqual({ id: '[REDACTED]' });
    expect(logged.result.content[0].text).toBe('the key is [REDACTED]');
    expect(full[0]).not.toContain('sk-exec');
  });

  it('rotates its file by size, keeping the last few', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-exec-log-'));
    dirs.push(dir);
    const file = join(dir, 'calls.jsonl');
    const log = createExecutionLog({ target: file, maxBytes: 1024, logArguments: false, redact: (t) => t });
    for (let i = 0; i < 60; i++) log.record({ ...record, configVersion: i }, 'c', undefined, result);
    await log.close();
    const names = readdirSync(dir).sort();
    expect(names).toEqual([
      'calls.jsonl',
      ...Array.from({ length: EXECUTION_LOG_KEEP }, (_, i) => `calls.jsonl.${i + 1}`),
    ]);
    // Each file is whole JSON lines, none over the limit.
    const versions: number[] = [];
    for (const name of [...names].reverse()) {
      const text = readFileSync(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024);
      for (const line of text.split('\n').filter(Boolean)) versions.push(JSON.parse(line).configVersion);
    }
    // The newest lines are kept, in order, none lost within what is kept.
    expect(versions.at(-1)).toBe(59);
    expect(versions).toEqual(Array.from({ length: versions.length }, (_, i) => 60 - versions.length + i));
  });

  it('refuses at once a file it cannot write', () => {
    expect(() =>
      createExecutionLog({
        target: '/proc/no/such/dir/calls.jsonl',
        maxBytes: 1024,
        logArguments: false,
        redact: (t) => t,
      }),
    ).toThrow(/SVC_EXECUTION_LOG: cannot append/);
  });
});
