import { type ChildProcess, spawn } from 'node:child_process';
import { chmod, copyFile, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { lockPathOf, placeId, tryLockFolder } from './folder-lock.js';
import { settleFolder } from './settle-folder.js';
import { processStart } from './process-start.js';
import { writeFolder } from './write-folder.js';

let base: string;
let sleeper: ChildProcess | undefined;
beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'svc-lock-'));
});
afterEach(async () => {
  sleeper?.kill('SIGKILL');
  sleeper = undefined;
  await rm(base, { recursive: true, force: true });
});

/** A live process that has nothing to do with svc, as a reused pid would be. */
function sleep30(command = 'sleep'): number {
  sleeper = spawn(command, ['30'], { stdio: 'ignore' });
  return sleeper.pid!;
}

const files = { 'config.yaml': 'schemaVersion: 1\n', 'README.md': '# v2\n' };

describe('the folder lock', () => {
  test('a lock from an older svc naming a live process that started after it does not block', async () => {
    const dir = join(base, 'server');
    const pid = sleep30();
    // svc before start times wrote the bare pid; this lock was left by a crash an hour ago.
    await writeFile(lockPathOf(dir), `${pid}\n`);
    const hourAgo = new Date(Date.now() - 3600_000);
    await utimes(lockPathOf(dir), hourAgo, hourAgo);
    const notices: string[] = [];
    await writeFolder(dir, files, { onNotice: (m) => notices.push(m) });
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# v2\n');
    expect(notices).toEqual([
      `took over the stale lock ${lockPathOf(dir)}: pid ${pid} started after the lock was written, so it is not the writer`,
    ]);
  });

  test('a lock whose pid is alive but started at another time is stale, and the notice says so', async () => {
    const dir = join(base, 'server');
    const pid = sleep30();
    await writeFile(lockPathOf(dir), `${JSON.stringify({ pid, start: 'another-boot:12345' })}\n`);
    const notices: string[] = [];
    await writeFolder(dir, files, { onNotice: (m) => notices.push(m) });
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# v2\n');
    expect(notices).toEqual([
      `took over the stale lock ${lockPathOf(dir)}: pid ${pid} is now another process, started after the lock was taken`,
    ]);
  });

  test('a lock naming a live process with its own start time blocks, naming the lock and the holder', async () => {
    const dir = join(base, 'server');
    const pid = sleep30();
    const start = await until(() => processStart(pid));
    const lock = `${JSON.stringify({ pid, start: start.token, since: '2026-11-23T18:00:00.000Z' })}\n`;
    await writeFile(lockPathOf(dir), lock);
    await expect(writeFolder(dir, files)).rejects.toMatchObject({
      code: 'WRITE_FAILED',
      message: `another svc process (pid ${pid}, writing since 2026-11-23T18:00:00.000Z) is writing this folder; its lock is ${lockPathOf(dir)}`,
    });
    expect(await readFile(lockPathOf(dir), 'utf8')).toBe(lock);
  });

  test('a lock written on another host or in another pid namespace is not judged from here', async () => {
    const dir = join(base, 'server');
    const pid = sleep30();
    await writeFile(lockPathOf(dir), `${JSON.stringify({ pid, start: 'x:1', host: 'ci-runner-7' })}\n`);
    // Refused, and the message says how to get out: the exact file, and when deleting it is safe.
    await expect(writeFolder(dir, files)).rejects.toMatchObject({
      message: `another svc process (pid ${pid} on host ci-runner-7) is writing this folder; its lock is ${lockPathOf(dir)}. svc cannot check that process from here; once no svc command is running on ci-runner-7 for this folder (pid ${pid} there is gone), delete ${lockPathOf(dir)} and run the command again`,
    });
    await writeFile(
      lockPathOf(dir),
      `${JSON.stringify({ pid, start: 'x:1', host: hostname(), pidns: 'pid:[1]' })}\n`,
    );
    const other = process.platform === 'linux' ? 'in another pid namespace (a container?)' : '';
    if (other) {
      await expect(writeFolder(dir, files)).rejects.toMatchObject({
        message: expect.stringContaining(`(pid ${pid} ${other})`),
      });
      await expect(writeFolder(dir, files)).rejects.toMatchObject({
        message: expect.stringContaining(`delete ${lockPathOf(dir)} and run the command again`),
      });
    }
  });

  test('an older svc’s lock naming a live process that started before it says how to clear it', async () => {
    const dir = join(base, 'server');
    // This test process started before the lock below was written, and stays alive.
    await writeFile(lockPathOf(dir), `${process.pid}\n`);
    await expect(writeFolder(dir, files)).rejects.toMatchObject({
      code: 'WRITE_FAILED',
      message: expect.stringContaining(
        `(pid ${process.pid}, by an older svc that recorded no start time) is writing this folder; its lock is ${lockPathOf(dir)}. svc cannot check that process from here; once pid ${process.pid} is not an svc command writing this folder (ps -p ${process.pid}), delete ${lockPathOf(dir)} and run the command again`,
      ),
    });
    // The lock is left as it was, and deleting it as told lets the write through.
    expect(await readFile(lockPathOf(dir), 'utf8')).toBe(`${process.pid}\n`);
    await rm(lockPathOf(dir));
    await writeFolder(dir, files);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe('# v2\n');
  });

  test('a lock just created and not yet written is respected; one left empty for long is taken over', async () => {
    const target = join(base, 'server');
    await writeFile(lockPathOf(target), '');
    const fresh = await tryLockFolder(target, () => undefined);
    expect(fresh).toMatchObject({ ok: false, holder: 'a process that is taking the lock right now' });
    const minuteAgo = new Date(Date.now() - 60_000);
    await utimes(lockPathOf(target), minuteAgo, minuteAgo);
    const old = await tryLockFolder(target, () => undefined);
    expect(old.ok).toBe(true);
    if (old.ok) await old.lock.release();
    expect(await readFile(lockPathOf(target), 'utf8').catch(() => 'gone')).toBe('gone');
  });

  test('a writer killed while taking the lock leaves a candidate the next command sweeps, unless it is not ours to judge', async () => {
    const target = join(base, 'server');
    await writeFolder(target, files);
    const dead = await exitedPid();
    const lock = lockPathOf(target);
    const here = placeId();
    const elsewhere = here === 'ffffffff' ? '00000000' : 'ffffffff';
    // Killed while writing its candidate (empty), or before linking it: swept.
    await writeFile(`${lock}.new-${here}-${dead}-0a1b2c3d`, '');
    // Killed after setting a stale lock aside: swept.
    await writeFile(`${lock}.stale-${here}-${dead}-0a1b2c3d`, '123\n');
    // Made on another host sharing the folder: its pid means nothing here, so it stays.
    await writeFile(`${lock}.new-${elsewhere}-${dead}-0e0e0e0e`, '');
    // A live process's candidate is its own business.
    await writeFile(`${lock}.new-${here}-${process.pid}-99999999`, '');
    await settleFolder(target, () => undefined);
    expect((await readdir(base)).sort()).toEqual(
      [
        `.server.svc-lock.new-${elsewhere}-${dead}-0e0e0e0e`,
        `.server.svc-lock.new-${here}-${process.pid}-99999999`,
        'server',
      ].sort(),
    );
    for (const name of await readdir(base)) if (name !== 'server') await rm(join(base, name));
    // Taking and releasing the lock leaves nothing beside the folder.
    const got = await tryLockFolder(target, () => undefined);
    expect(got.ok).toBe(true);
    if (got.ok) await got.lock.release();
    expect(await readdir(base)).toEqual(['server']);
  });

  test('a lock records this process with its start time, and release leaves no file', async () => {
    const target = join(base, 'server');
    const got = await tryLockFolder(target, () => undefined);
    expect(got.ok).toBe(true);
    const record = JSON.parse(await readFile(lockPathOf(target), 'utf8'));
    expect(record).toMatchObject({ pid: process.pid, since: expect.any(String) });
    if (process.platform !== 'win32') expect(record.start).toBe(processStart(process.pid)?.token);
    // The same process asking again is another writer: refused.
    expect(await tryLockFolder(target, () => undefined)).toMatchObject({ ok: false });
    if (got.ok) await got.lock.release();
    expect(await readFile(lockPathOf(target), 'utf8').catch(() => 'gone')).toBe('gone');
  });
});

describe.runIf(process.platform === 'linux')('processStart on Linux', () => {
  test('is stable for a process, differs between processes, and survives ") " in the command name', async () => {
    const me = processStart(process.pid);
    expect(me?.token).toMatch(/^[0-9a-f-]{36}:\d+$/);
    expect(processStart(process.pid)).toEqual(me);
    // /proc/<pid>/stat puts the command in parentheses; a name holding ") " must not shift fields.
    const odd = join(base, 'we) ird (x');
    await copyFile('/bin/sleep', odd);
    await chmod(odd, 0o755);
    const pid = sleep30(odd);
    const other = await until(() => processStart(pid));
    expect(other.token).not.toBe(me?.token);
    expect(Math.abs((other.atMs ?? 0) - Date.now())).toBeLessThan(10_000);
    expect(processStart(2 ** 22 + 7)).toBeUndefined();
  });
});

/** The pid of a process that has exited. */
async function exitedPid(): Promise<number> {
  const child = spawn('true', { stdio: 'ignore' });
  await new Promise((done) => child.once('exit', done));
  return child.pid!;
}

async function until<T>(get: () => T | undefined): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = get();
    if (value !== undefined) return value;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('timed out');
}
