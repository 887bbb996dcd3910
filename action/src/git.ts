/**
 * The git CLI, as the action needs it: read trees at two commits, list what a pull request changed, commit a
 * folder and push. A token never goes into argv, a URL or a log line: it travels as an http extraheader through
 * GIT_CONFIG_* environment variables, which git reads like config but which no `ps` or error message shows.
 */
import { execFile } from 'node:child_process';
import { SvcError } from '../../core/svc-error.js';
import type { FolderFiles } from '../../folder/model.js';
import { createRedactor } from '../../runtime/redact.js';

export interface GitOptions {
  cwd: string;
  /** Extra environment (auth headers, identities). */
  env?: Record<string, string>;
  input?: string;
  /** Secrets to blank out of any error message. */
  secrets?: readonly string[];
}

/**
 * Blanks the secrets out of a text with the runtime's redactor, so a token is caught in the forms
 * git itself writes (the base64 of `x-access-token:<token>` in an extraheader) as well as raw.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  return createRedactor(secrets)(text);
}

export function runGit(args: readonly string[], opts: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      [...args],
      {
        cwd: opts.cwd,
        env: { ...process.env, GIT_TERMINAL_PROMPT: '0', ...opts.env },
        maxBuffer: 256 * 1024 * 1024,
        encoding: 'utf8',
      },
      (error, stdout, stderr) => {
        if (error) {
          const message = redact(
            `git ${args[0]} failed: ${String(stderr || error.message).trim()}`,
            opts.secrets,
          );
          reject(new SvcError('GIT_FAILED', message, { place: { file: opts.cwd } }));
        } else resolve(stdout);
      },
    );
    if (opts.input !== undefined) child.stdin?.end(opts.input);
  });
}

/**
 * Environment that makes git send `Authorization: basic x-access-token:<token>` to `serverUrl` (what
 * actions/checkout persists, scoped the same way). The empty first value resets any header an earlier
 * checkout stored, so that a token given to this action wins instead of being sent twice.
 */
export function gitAuthEnv(token: string, serverUrl: string): Record<string, string> {
  if (!token) return {};
  const key = `http.${serverUrl.replace(/\/+$/, '')}/.extraheader`;
  const basic = Buffer.from(`x-access-token:${token}`, 'utf8').toString('base64');
  return {
    GIT_CONFIG_COUNT: '2',
    GIT_CONFIG_KEY_0: key,
    GIT_CONFIG_VALUE_0: '',
    GIT_CONFIG_KEY_1: key,
    GIT_CONFIG_VALUE_1: `AUTHORIZATION: basic ${basic}`,
  };
}

export async function hasCommit(cwd: string, sha: string): Promise<boolean> {
  try {
    await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd });
    return true;
  } catch {
    return false;
  }
}

/** Makes `sha` available locally (a shallow checkout has only the head). */
export async function ensureCommit(
  cwd: string,
  sha: string,
  opts: Omit<GitOptions, 'cwd'> = {},
): Promise<void> {
  if (await hasCommit(cwd, sha)) return;
  await runGit(['fetch', '--no-tags', '--depth=1', 'origin', sha], { cwd, ...opts });
}

/** Paths (repository-relative) that differ between two commits; a rename counts as both of its paths. */
export async function changedFiles(cwd: string, base: string, head: string): Promise<string[]> {
  const out = await runGit(['diff', '--name-only', '--no-renames', '-z', base, head, '--'], { cwd });
  return out.split('\0').filter((p) => p.length > 0);
}

/** Every file path in a commit's tree (optionally under `dir`). */
export async function listFiles(cwd: string, rev: string, dir?: string): Promise<string[]> {
  const args = ['ls-tree', '-r', '-z', '--name-only', '--full-tree', rev];
  if (dir) args.push('--', dir);
  const out = await runGit(args, { cwd });
  return out.split('\0').filter((p) => p.length > 0);
}

/** One file's text at `rev`; undefined when the commit has no such file. */
export async function readFileAt(cwd: string, rev: string, path: string): Promise<string | undefined> {
  try {
    return await runGit(['cat-file', 'blob', `${rev}:${path}`], { cwd });
  } catch {
    return undefined;
  }
}

/** The text of every file under `dir` at `rev` (that `keep` accepts), keyed by path relative to `dir` (one `cat-file --batch`). */
export async function readFilesAt(
  cwd: string,
  rev: string,
  dir: string,
  keep: (relativePath: string) => boolean = () => true,
): Promise<FolderFiles> {
  const prefix = dir.replace(/\/+$/, '');
  // Blobs only: a submodule (gitlink) has no text to read.
  const args = ['ls-tree', '-r', '-z', '--full-tree', rev];
  if (prefix) args.push('--', prefix);
  // `<mode> blob <oid>\t<path>`; asking cat-file for oids avoids resolving every path through the trees.
  const entries = (await runGit(args, { cwd }))
    .split('\0')
    .map((entry) => / blob ([0-9a-f]+)\t([\s\S]*)$/.exec(entry))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ oid: m[1] ?? '', path: m[2] ?? '' }))
    .filter((e) => keep(prefix ? e.path.slice(prefix.length + 1) : e.path));
  const files: FolderFiles = {};
  if (entries.length === 0) return files;
  const input = `${entries.map((e) => e.oid).join('\n')}\n`;
  const raw = await new Promise<Buffer>((resolve, reject) => {
    const child = execFile(
      'git',
      ['cat-file', '--batch'],
      { cwd, encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 },
      (error, stdout) =>
        error ? reject(new SvcError('GIT_FAILED', `git cat-file failed: ${error.message}`)) : resolve(stdout),
    );
    child.stdin?.end(input);
  });
  let offset = 0;
  for (const { path } of entries) {
    const eol = raw.indexOf(10, offset);
    const header = raw.subarray(offset, eol).toString('utf8');
    const size = Number(header.split(' ')[2]);
    if (!Number.isFinite(size))
      throw new SvcError('GIT_FAILED', `unexpected git cat-file output for ${path}`);
    const rel = prefix ? path.slice(prefix.length + 1) : path;
    files[rel] = raw.subarray(eol + 1, eol + 1 + size).toString('utf8');
    offset = eol + 1 + size + 1;
  }
  return files;
}

export async function headMessage(cwd: string): Promise<string> {
  return runGit(['log', '-1', '--format=%B'], { cwd });
}

export const BOT_NAME = 'github-actions[bot]';
export const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';

/**
 * Stages `paths` (additions, edits, deletions) and commits them when anything is staged.
 * Returns the new commit's sha, or undefined when there was nothing to commit.
 */
export async function commitPaths(
  cwd: string,
  paths: readonly string[],
  message: string,
): Promise<string | undefined> {
  await runGit(['add', '-A', '--', ...paths], { cwd });
  const staged = await runGit(['diff', '--cached', '--name-only', '--', ...paths], { cwd });
  if (staged.trim() === '') return undefined;
  await runGit(
    [
      '-c',
      `user.name=${BOT_NAME}`,
      '-c',
      `user.email=${BOT_EMAIL}`,
      'commit',
      '-q',
      '-F',
      '-',
      '--',
      ...paths,
    ],
    { cwd, input: message },
  );
  return (await runGit(['rev-parse', 'HEAD'], { cwd })).trim();
}

export async function push(cwd: string, branch: string, opts: Omit<GitOptions, 'cwd'> = {}): Promise<void> {
  await runGit(['push', '-q', 'origin', `HEAD:refs/heads/${branch}`], { cwd, ...opts });
}

/**
 * Pushes; when the branch moved meanwhile (another merge landed during the run), replays our commit on the
 * new tip and pushes once more. A conflict aborts the rebase and fails: the next push re-imports anyway.
 */
export async function pushRebasing(
  cwd: string,
  branch: string,
  opts: Omit<GitOptions, 'cwd'> = {},
): Promise<{ rebased: boolean; sha: string }> {
  try {
    await push(cwd, branch, opts);
    return { rebased: false, sha: (await runGit(['rev-parse', 'HEAD'], { cwd })).trim() };
  } catch (first) {
    await runGit(['fetch', '-q', '--no-tags', 'origin', `refs/heads/${branch}`], { cwd, ...opts });
    try {
      await runGit(
        ['-c', `user.name=${BOT_NAME}`, '-c', `user.email=${BOT_EMAIL}`, 'rebase', '-q', 'FETCH_HEAD'],
        {
          cwd,
        },
      );
    } catch {
      await runGit(['rebase', '--abort'], { cwd }).catch(() => undefined);
      throw new SvcError(
        'GIT_FAILED',
        `${branch} moved during the run and the re-import conflicts with it; the next push re-imports`,
        { cause: first },
      );
    }
    await push(cwd, branch, opts);
    return { rebased: true, sha: (await runGit(['rev-parse', 'HEAD'], { cwd })).trim() };
  }
}
