/**
 * Where the control service keeps its data (the embedded database, the sealing key `secret.key`,
 * the git cache, job scratch space) when neither `--data` nor SVC_DATA_DIR says: the user's state
 * directory ($XDG_STATE_HOME/svc/control, else ~/.local/state/svc/control), never the current
 * directory, which is often the user's repository. A data directory svc makes carries a
 * `.gitignore` of `*`, so that even one put inside a work tree on purpose stays out of git.
 */
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { mkdir, writeFile } from 'node:fs/promises';

export function defaultControlDataDir(env: Readonly<Record<string, string | undefined>>): string {
  const given = env.SVC_DATA_DIR?.trim();
  if (given) return given;
  const state = env.XDG_STATE_HOME?.trim();
  if (state && isAbsolute(state)) return join(state, 'svc', 'control');
  return join(env.HOME?.trim() || homedir(), '.local', 'state', 'svc', 'control');
}

/** Makes the data directory (0700: it holds the sealing key) with its `.gitignore`, if missing. */
export async function ensureControlDataDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  await writeFile(join(dir, '.gitignore'), '# svc control data: secrets and a database, never for git\n*\n', {
    flag: 'wx',
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
}
