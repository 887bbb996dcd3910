/**
 * Filesystem steps that are on disk when they return, not just in the page cache: a file's
 * bytes, and a directory's entries (a rename or a new name is durable only once the directory
 * holding it is fsynced). The swap journal relies on this order: the new folder is complete on
 * disk before the journal names it, and each rename is durable before the next one starts.
 */
import { lstat, mkdir, open, rename, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';

/**
 * Writes `data` to a new file (refusing to replace one) and fsyncs it; with `mode`, the file gets
 * exactly those permission bits (not as the umask leaves them).
 */
export async function writeFileSynced(
  path: string,
  data: string | Uint8Array,
  flag = 'wx',
  mode?: number,
): Promise<void> {
  const handle = await open(path, flag);
  try {
    if (mode !== undefined) await handle.chmod(mode);
    // A large text (Tools/openapi.json) is encoded a piece at a time, not into one more buffer its
    // size. Each writeFile goes on from where the last ended and writes its piece whole.
    if (typeof data !== 'string' || data.length <= CHUNK) await handle.writeFile(data);
    else for (const piece of textPieces(data, CHUNK)) await handle.writeFile(piece);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

const CHUNK = 1 << 20;

/** `text` in pieces of about `size` UTF-16 units, never splitting a surrogate pair: their UTF-8 is the text's. */
export function* textPieces(text: string, size: number): Generator<string> {
  let start = 0;
  while (start < text.length) {
    let end = Math.min(start + size, text.length);
    const last = text.charCodeAt(end - 1);
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
    if (end === start) end = start + 2;
    yield text.slice(start, end);
    start = end;
  }
}

/** Fsyncs a directory, making the names created, removed or renamed in it durable. */
export async function syncDir(path: string): Promise<void> {
  // Windows cannot open a directory for fsync; its filesystems journal renames themselves.
  if (process.platform === 'win32') return;
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (e) {
    // Some filesystems (FUSE, network) do not implement fsync on directories: nothing to wait for.
    if ((e as NodeJS.ErrnoException).code !== 'EINVAL') throw e;
  } finally {
    await handle.close();
  }
}

/** Renames, then fsyncs the directories the name left and arrived in. */
export async function renameSynced(from: string, to: string): Promise<void> {
  await rename(from, to);
  await syncDir(dirname(to));
  if (dirname(from) !== dirname(to)) await syncDir(dirname(from));
}

/** Creates `rel` (a '/' path) below `root` one segment at a time, fsyncing each new name's parent. */
export async function mkdirSynced(root: string, rel: string): Promise<void> {
  let dir = root;
  for (const segment of rel.split('/').filter((s) => s !== '')) {
    const next = join(dir, segment);
    const made = await mkdir(next).then(
      () => true,
      (e: NodeJS.ErrnoException) => {
        if (e.code === 'EEXIST') return false;
        throw e;
      },
    );
    if (made) await syncDir(dir);
    dir = next;
  }
}

/** Whether something is at `path`, following a symbolic link (as `existsSync` does). */
export function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** Whether something is at `path`; a symbolic link counts as itself, never followed. */
export async function present(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch {
    return false;
  }
}
