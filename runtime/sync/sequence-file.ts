/**
 * The last signed snapshot a runtime accepted, kept in SVC_STATE_DIR so that a restarted runtime
 * still refuses an older one (a rollback). One small JSON file per server id,
 * `<dir>/snapshot-<serverId>.json` = `{ "sequence": n, "commit": "…" }`, written crash-safely: a
 * temporary file beside it is written and flushed, then renamed over it (a crash leaves the old
 * record or the new one, never a torn one). A record that cannot be read refuses the boot, naming
 * the file: rollback protection never silently restarts from zero.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { SvcError } from '../../core/svc-error.js';

export interface AcceptedSnapshot {
  sequence: number;
  commit: string;
}

export interface SequenceFile {
  readonly file: string;
  /** The record read at open (undefined: none yet). */
  readonly last: AcceptedSnapshot | undefined;
  save(accepted: AcceptedSnapshot): Promise<void>;
}

function parseRecord(text: string): AcceptedSnapshot | undefined {
  try {
    const value = JSON.parse(text) as { sequence?: unknown; commit?: unknown };
    if (
      Number.isSafeInteger(value.sequence) &&
      (value.sequence as number) >= 0 &&
      typeof value.commit === 'string'
    )
      return { sequence: value.sequence as number, commit: value.commit };
  } catch {
    // Said below.
  }
  return undefined;
}

async function readRecord(file: string): Promise<AcceptedSnapshot | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SvcError('CONFIG_MISSING_ENV', `SVC_STATE_DIR: cannot read ${file}`, {
      place: { field: 'SVC_STATE_DIR', file },
      cause: error,
    });
  }
  const record = parseRecord(text);
  if (record) return record;
  throw new SvcError(
    'USAGE',
    `SVC_STATE_DIR: ${file} is not a snapshot record ({"sequence", "commit"}); delete it only if you trust the next snapshot the control service sends`,
    { place: { field: 'SVC_STATE_DIR', file } },
  );
}

/** Writes text to file through a flushed temporary file and a rename. */
async function writeAtomically(file: string, text: string): Promise<void> {
  const temp = `${file}.${randomBytes(4).toString('hex')}.tmp`;
  try {
    const handle = await open(temp, 'w', 0o600);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

export async function openSequenceFile(dir: string, serverId: string): Promise<SequenceFile> {
  await mkdir(dir, { recursive: true, mode: 0o700 }).catch((error: unknown) => {
    throw new SvcError('CONFIG_MISSING_ENV', `SVC_STATE_DIR: cannot create ${dir}`, {
      place: { field: 'SVC_STATE_DIR', file: dir },
      cause: error,
    });
  });
  const file = join(dir, `snapshot-${serverId}.json`);
  const last = await readRecord(file);
  return {
    file,
    last,
    save: (accepted) => writeAtomically(file, `${JSON.stringify(accepted)}\n`),
  };
}
