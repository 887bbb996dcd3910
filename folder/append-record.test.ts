import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { lockPathOf } from './folder-lock.js';
import { processStart } from './process-start.js';
import { appendRecord } from './append-record.js';

let base: string;
let dir: string;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-append-'));
  dir = join(base, 'server');
  await mkdir(join(dir, '.svc', 'history'), { recursive: true });
  await writeFile(join(dir, 'config.yaml'), 'schemaVersion: 1\n');
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

test('appends the record as one new file and leaves nothing else behind', async () => {
  await appendRecord(dir, '.svc/history/0002.json', '{"seq":2}\n');
  expect(await readFile(join(dir, '.svc', 'history', '0002.json'), 'utf8')).toBe('{"seq":2}\n');
  expect(await readdir(join(dir, '.svc', 'history'))).toEqual(['0002.json']);
  expect(await readdir(base)).toEqual(['server']);
});

test('does not write beside a live writer: the folder lock is taken like any write', async () => {
  // A live writer (this very process, with its start time) holds the lock, mid-write.
  const start = processStart(process.pid);
  await writeFile(
    lockPathOf(dir),
    `${JSON.stringify({ pid: process.pid, ...(start ? { start: start.token } : {}) })}\n`,
  );
  await expect(appendRecord(dir, '.svc/history/0002.json', '{"seq":2}\n')).rejects.toMatchObject({
    code: 'WRITE_FAILED',
    message: expect.stringContaining(`another svc process (pid ${process.pid}) is writing this folder`),
  });
  expect(await readdir(join(dir, '.svc', 'history'))).toEqual([]);
});
