/**
 * One writer per folder at a time: two imports swapping entries at once could leave a mix of
 * both. The lock is a sibling file, `.<folder>.svc-lock`, created exclusively and holding the
 * writer's pid and start time. A lock is stale, and taken over, when its process is gone, when
 * its pid now names another process (a different start time: the pid was reused after a crash
 * or a reboot), or, for a lock that recorded no start time, when the process naming it started
 * after the lock was written. A lock held by a live writer is never taken, nor one written on
 * another host or in another pid namespace (a container sharing the folder): its pid cannot be
 * checked from here. Such a lock, and an older svc's lock naming a live process that started
 * before it, is never taken over (a timeout cannot tell a long write from a dead one); the refusal
 * says which file to delete, and when that is safe.
 *
 * The lock is written whole in a candidate file and then hard-linked into place, so a writer
 * killed while taking it leaves either no lock or a complete one, never an empty file that
 * nobody could judge. Candidates and stale locks set aside carry their maker's place and pid in
 * their name (`.<folder>.svc-lock.new-<place>-<pid>-<hex>`, `…stale-…`); those of dead processes
 * of this host are swept whenever the lock is next taken.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import { link, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { processStart } from './process-start.js';

export interface FolderLock {
  path: string;
  /** Removes the lock, unless another process has (wrongly) replaced it meanwhile. */
  release(): Promise<void>;
}

export type LockAttempt =
  | { ok: true; lock: FolderLock }
  | {
      ok: false;
      path: string;
      holder: string;
      /** For a holder svc cannot check from here: how to clear the lock by hand, and when it is safe. */
      remedy?: string;
    };

interface LockRecord {
  pid: number;
  /** processStart(pid).token when the lock was taken; absent in locks of older svc versions. */
  start?: string;
  since?: string;
  /** Where the pid means something: the host, and on Linux the pid namespace. */
  host?: string;
  pidns?: string;
}

type Inspection =
  | { live: true; holder: string; remedy?: string }
  | { live: false; reason: string; text: string };

/** What to do about a lock svc cannot judge from here: delete it, once nothing is writing. */
function remedyFor(path: string, when: string): string {
  return `svc cannot check that process from here; once ${when}, delete ${path} and run the command again`;
}

/** An unreadable lock this young is one whose writer has created it but not yet written it. */
const FRESH_MS = 5000;
/** Slack between a lock's mtime and a process start time computed from the boot time. */
const CLOCK_SLACK_MS = 2000;

export function lockPathOf(target: string): string {
  return join(dirname(target), `.${basename(target)}.svc-lock`);
}

/**
 * Where a pid means something, as 8 hex characters: the host and, on Linux, the pid namespace. A
 * candidate or set-aside lock carries it in its name, so whether its maker is gone can be judged
 * without reading it: a writer killed while writing its candidate leaves it empty.
 */
export function placeId(): string {
  const { host, pidns } = here();
  return createHash('sha256')
    .update(`${host}\0${pidns ?? ''}`)
    .digest('hex')
    .slice(0, 8);
}

/** A candidate or set-aside lock file of `target`'s lock: where and by which pid it was made. */
export function lockLeftover(target: string, name: string): { place: string; pid: number } | undefined {
  const lock = basename(lockPathOf(target));
  if (!name.startsWith(`${lock}.`)) return undefined;
  const match = /^(?:new|stale)-([0-9a-f]{8})-(\d+)-[0-9a-f]+$/.exec(name.slice(lock.length + 1));
  return match ? { place: match[1]!, pid: Number(match[2]) } : undefined;
}

/** A sibling file name for a lock candidate or a lock set aside, unique to this process. */
function sidePath(path: string, kind: 'new' | 'stale'): string {
  return `${path}.${kind}-${placeId()}-${process.pid}-${randomBytes(4).toString('hex')}`;
}

/**
 * Removes the candidates and set-aside locks that dead processes left beside the folder. One made
 * on another host or in another pid namespace (a folder shared over NFS, a container) is left
 * alone: its pid means nothing here.
 */
async function sweepLeftovers(target: string): Promise<void> {
  const dir = dirname(target);
  const names = await readdir(dir).catch(() => [] as string[]);
  const place = placeId();
  for (const name of names) {
    const left = lockLeftover(target, name);
    if (left === undefined || left.place !== place || isAlive(left.pid)) continue;
    await rm(join(dir, name), { force: true });
  }
}

/** Takes the lock of the folder at `target` (its real path), or says who holds it. */
export async function tryLockFolder(target: string, notice: (message: string) => void): Promise<LockAttempt> {
  const path = lockPathOf(target);
  await sweepLeftovers(target);
  for (let attempt = 0; attempt < 3; attempt++) {
    const mine = await create(path);
    if (mine !== undefined) return { ok: true, lock: { path, release: () => release(path, mine) } };
    const seen = await inspect(path);
    if (seen === undefined) continue;
    if (seen.live) {
      return { ok: false, path, holder: seen.holder, ...(seen.remedy ? { remedy: seen.remedy } : {}) };
    }
    if (await takeOver(path, seen.text)) notice(`took over the stale lock ${path}: ${seen.reason}`);
  }
  return { ok: false, path, holder: 'another svc process (the lock kept changing hands)' };
}

/** The text written, or undefined when the lock already exists. */
async function create(path: string): Promise<string | undefined> {
  const start = processStart(process.pid);
  const record: LockRecord = {
    pid: process.pid,
    ...(start ? { start: start.token } : {}),
    since: new Date().toISOString(),
    ...here(),
  };
  const text = `${JSON.stringify(record)}\n`;
  const candidate = sidePath(path, 'new');
  await writeFile(candidate, text, { flag: 'wx' });
  try {
    // link() fails when the lock exists, like an exclusive create, but publishes a whole file.
    await link(candidate, path);
    return text;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return undefined;
    throw e;
  } finally {
    // The lock is published either way; a candidate that cannot be removed is swept later.
    await rm(candidate, { force: true }).catch(() => undefined);
  }
}

async function release(path: string, text: string): Promise<void> {
  const current = await readFile(path, 'utf8').catch(() => undefined);
  if (current === text) await rm(path, { force: true });
}

async function inspect(path: string): Promise<Inspection | undefined> {
  let text: string;
  let writtenMs: number;
  try {
    text = await readFile(path, 'utf8');
    writtenMs = (await stat(path)).mtimeMs;
  } catch {
    return undefined;
  }
  const record = parseLock(text);
  if (record === undefined) {
    // Only an older svc, which created the lock and then wrote it, leaves one unreadable.
    return Date.now() - writtenMs < FRESH_MS
      ? { live: true, holder: 'a process that is taking the lock right now' }
      : { live: false, reason: 'the lock file names no process', text };
  }
  const { pid } = record;
  const since = record.since ? `, writing since ${record.since}` : '';
  const local = here();
  if (record.host !== undefined && record.host !== local.host)
    return {
      live: true,
      holder: `pid ${pid} on host ${record.host}${since}`,
      remedy: remedyFor(
        path,
        `no svc command is running on ${record.host} for this folder (pid ${pid} there is gone)`,
      ),
    };
  if (record.pidns !== undefined && local.pidns !== undefined && record.pidns !== local.pidns)
    return {
      live: true,
      holder: `pid ${pid} in another pid namespace (a container?)${since}`,
      remedy: remedyFor(
        path,
        `no svc command is running for this folder in the other container or pid namespace (pid ${pid} there is gone)`,
      ),
    };
  if (!isAlive(pid)) return { live: false, reason: `pid ${pid} is no longer running`, text };
  const now = processStart(pid);
  if (record.start !== undefined && now !== undefined && record.start !== now.token) {
    return {
      live: false,
      reason: `pid ${pid} is now another process, started after the lock was taken`,
      text,
    };
  }
  if (record.start === undefined && now?.atMs !== undefined && now.atMs > writtenMs + CLOCK_SLACK_MS) {
    return {
      live: false,
      reason: `pid ${pid} started after the lock was written, so it is not the writer`,
      text,
    };
  }
  if (record.start === undefined) {
    // An older svc's lock (a bare pid) naming a live process that started before the lock was
    // written: it may be the writer, or a reused pid svc cannot tell apart.
    return {
      live: true,
      holder: `pid ${pid}, by an older svc that recorded no start time${since}`,
      remedy: remedyFor(path, `pid ${pid} is not an svc command writing this folder (ps -p ${pid})`),
    };
  }
  return { live: true, holder: `pid ${pid}${since}` };
}

/** This version's JSON record, or an older version's bare pid. */
function parseLock(text: string): LockRecord | undefined {
  const trimmed = text.trim();
  if (/^\d+$/.test(trimmed)) return validPid({ pid: Number(trimmed) });
  try {
    const value = JSON.parse(trimmed) as Partial<LockRecord>;
    if (typeof value !== 'object' || value === null || typeof value.pid !== 'number') return undefined;
    return validPid({
      pid: value.pid,
      ...(typeof value.start === 'string' ? { start: value.start } : {}),
      ...(typeof value.since === 'string' ? { since: value.since } : {}),
      ...(typeof value.host === 'string' ? { host: value.host } : {}),
      ...(typeof value.pidns === 'string' ? { pidns: value.pidns } : {}),
    });
  } catch {
    return undefined;
  }
}

function validPid(record: LockRecord): LockRecord | undefined {
  return Number.isSafeInteger(record.pid) && record.pid > 0 ? record : undefined;
}

/**
 * Removes a stale lock, but only the one judged stale: it is renamed aside first, and if what
 * was moved is not the text that was inspected (a writer replaced the stale lock meanwhile),
 * it is put back.
 */
async function takeOver(path: string, staleText: string): Promise<boolean> {
  const aside = sidePath(path, 'stale');
  try {
    await rename(path, aside);
  } catch {
    return false;
  }
  const moved = await readFile(aside, 'utf8').catch(() => undefined);
  if (moved !== staleText) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
  return moved === staleText;
}

function here(): { host: string; pidns?: string } {
  let pidns: string | undefined;
  try {
    if (process.platform === 'linux') pidns = readlinkSync('/proc/self/ns/pid');
  } catch {
    pidns = undefined;
  }
  return { host: hostname(), ...(pidns ? { pidns } : {}) };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
