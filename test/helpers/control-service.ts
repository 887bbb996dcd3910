/**
 * The control service as the end-to-end tests start it: a fresh data directory, a workspace token
 * made the way an operator makes one (`svc control token workspace`, through the CLI), and the
 * service on a free loopback port, with the branch-head refresh off and a quick worker.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningControl, type StartControlOptions, startControl } from '../../control/index.js';
import { svc } from './run-cli.js';

export interface TestControl {
  data: string;
  /** The workspace token. */
  pat: string;
  control: RunningControl;
}

export async function startTestControl(
  prefix: string,
  options: Omit<StartControlOptions, 'port' | 'dataDir'>,
): Promise<TestControl> {
  const data = mkdtempSync(join(tmpdir(), prefix));
  const made = await svc(['control', 'token', 'workspace', '--name', 'ci', '--data', data], { cwd: data });
  if (made.code !== 0) throw new Error(`svc control token workspace failed (${made.code}): ${made.stderr}`);
  const control = await startControl({
    port: 0,
    dataDir: data,
    headRefreshMs: 0,
    workerPollMs: 200,
    ...options,
  });
  return { data, pat: made.stdout.trim(), control };
}
