/**
 * Which modules one run of the built CLI resolves: the run is preloaded with record-loads.mjs,
 * which writes every resolved URL to a file. Tests use it to check that a command loads only
 * what it needs.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { BUILT_CLI, REPO_ROOT } from './built-cli.js';

/** The module URLs `svc <args>` resolved, run in `cwd` (where the record file is written too). */
export function modulesLoadedBy(cwd: string, args: string[], env: Record<string, string> = {}): string[] {
  const out = path.join(cwd, `loads-${Math.random().toString(36).slice(2)}.txt`);
  execFileSync(
    process.execPath,
    ['--import', path.join(REPO_ROOT, 'test/helpers/record-loads.mjs'), BUILT_CLI, ...args],
    { cwd, env: { ...process.env, ...env, SVC_RECORD_LOADS: out }, stdio: 'ignore' },
  );
  return readFileSync(out, 'utf8').split('\n').filter(Boolean);
}
