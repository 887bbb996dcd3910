/**
 * When a process started, as a token that stays the same for the life of a process and differs
 * once its pid is reused. The folder lock records it beside the pid: after a crash the pid in a
 * lock file may name a live but unrelated process, and only the start time tells them apart.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface ProcessStart {
  /** Equal for the same process, different for another process that got the same pid. */
  token: string;
  /** Wall-clock start (ms since the epoch), approximate: for locks that recorded no token. */
  atMs?: number;
}

/** Linux reports start times in USER_HZ ticks, which the kernel ABI fixes at 100 per second. */
const TICK_MS = 10;

export function processStart(pid: number): ProcessStart | undefined {
  if (process.platform === 'linux') return linuxStart(pid);
  if (process.platform === 'win32') return undefined;
  return psStart(pid);
}

function linuxStart(pid: number): ProcessStart | undefined {
  const stat = readOrEmpty(`/proc/${pid}/stat`);
  // Field 2 (the command) is in parentheses and may itself hold spaces or ')': count from the last.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // Field 22, starttime: ticks since boot. Field 3 is the first after the parenthesis.
  const ticks = fields[22 - 3];
  if (ticks === undefined || !/^\d+$/.test(ticks)) return undefined;
  // Ticks count from boot, so the boot id makes the token unique across reboots too.
  const boot = readOrEmpty('/proc/sys/kernel/random/boot_id').trim();
  const btime = /^btime (\d+)$/m.exec(readOrEmpty('/proc/stat'))?.[1];
  return {
    token: `${boot}:${ticks}`,
    ...(btime ? { atMs: Number(btime) * 1000 + Number(ticks) * TICK_MS } : {}),
  };
}

/** macOS and the BSDs: `ps` prints the start time (to the second) of any process. */
function psStart(pid: number): ProcessStart | undefined {
  try {
    const out = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, LC_ALL: 'C' },
      timeout: 5000,
    }).trim();
    if (out === '') return undefined;
    const atMs = Date.parse(out);
    return { token: out, ...(Number.isNaN(atMs) ? {} : { atMs }) };
  } catch {
    return undefined;
  }
}

function readOrEmpty(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return '';
  }
}
