/**
 * The I/O edge for a git repository source (spec 2.2): a shallow fetch of one branch over smart
 * HTTP with isomorphic-git (no git binary, so it works in the runtime image too) into a cache
 * outside the server folder, then the document and the content directories are read straight
 * from the commit's tree: nothing is checked out.
 *
 * The token (SVC_GIT_TOKEN or a connection's) is only ever handed to isomorphic-git's onAuth: it
 * is never part of a URL, a path, an error or anything written.
 */
import * as fs from 'node:fs';
import { mkdir, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, posix } from 'node:path';
import { SvcError } from '../../core/svc-error.js';
import {
  type ContentTree,
  type RawFile,
  type ReadContentOptions,
  readContentTree,
  type TreeEntry,
} from './content-source.js';
import { type AddressPolicy, addressPolicy } from './address-policy.js';
import { withLock } from '../../folder/with-lock.js';
import {
  DEFAULT_MAX_FETCH_BYTES,
  fetchBranch as fetchRemoteBranch,
  initRemoteCache,
  readBlobAt,
  readTreeAt,
  remoteAccess,
  remoteCacheDir,
  resolveCommit,
} from './git/index.js';
import { givenGitCacheDir } from './git-cache-dir.js';
import { checkGitUrl } from './git-url.js';
import { DEFAULT_MAX_SOURCE_BYTES, type SourceText } from './openapi-source.js';

export interface GitSourceSpec {
  /** http(s) URL of the repository, without credentials. */
  url: string;
  branch: string;
  /** The document, relative to the repository root. */
  path: string;
  /** Directory in the repository holding the content directories ('.' is the root). */
  contentDir?: string;
}

export interface ReadGitOptions {
  /** A commit (full or abbreviated id) to read instead of the branch head: `svc diff --ref`. */
  ref?: string;
  /** Sent as Basic `<username>:<token>` when the server asks for credentials. */
  token?: string;
  /** Default x-access-token (GitHub's convention); GitLab OAuth tokens go as oauth2. */
  username?: string;
  /**
   * What the reader should set when credentials are missing or refused, as errors name it
   * (default SVC_GIT_TOKEN; the Action says its input, the control service its API call).
   */
  credentialHint?: string;
  /** Where fetched repositories are kept (default: gitCacheDir()). */
  cacheDir?: string;
  maxBytes?: number;
  /** Most bytes one fetch may download (default 512 MiB): a hostile server cannot fill the disk. */
  maxFetchBytes?: number;
  /** Checks every hop's address and pins the connection (the control service: no private addresses). */
  policy?: AddressPolicy;
  content?: ReadContentOptions;
}

export interface GitSourceRead {
  document: SourceText;
  /** The full id of the commit read. */
  commit: string;
  /** Reads the content directories of the same commit (spec.contentDir; none set → none read). */
  readContent(): Promise<RawFile[]>;
}

/**
 * The user's own cache ($SVC_CACHE_DIR as given, else $XDG_CACHE_HOME/svc/git, else
 * ~/.cache/svc/git), mode 0700. `SVC_CACHE_DIR=off` turns off the schema check cache only
 * (folder/schema-check-cache.ts): a git source needs a cache all the same, so it takes the default. Never a
 * shared directory such as /tmp as it is: isomorphic-git trusts the objects it finds, so another
 * local user able to write there could change what an import reads. Without a usable home
 * (a container), a per-user directory under the temporary directory, checked to be ours.
 */
export async function gitCacheDir(env: Record<string, string | undefined>): Promise<string> {
  const own = givenGitCacheDir(env);
  if (own) return own;
  const home = env.XDG_CACHE_HOME || (env.HOME ? join(env.HOME, '.cache') : undefined);
  if (home) {
    const dir = join(home, 'svc', 'git');
    try {
      await mkdir(dir, { recursive: true, mode: 0o700 });
      return dir;
    } catch {
      // Unwritable home: fall through to the private temporary directory.
    }
  }
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `svc-git-cache-${uid}`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await stat(dir);
  if ((process.getuid && info.uid !== uid) || (info.mode & 0o022) !== 0) {
    throw new SvcError(
      'SOURCE_UNREACHABLE',
      `${dir} belongs to another user or others may write to it; set SVC_CACHE_DIR to a directory of your own`,
      { place: { file: dir } },
    );
  }
  return dir;
}

/** How deep `--ref <sha>` looks back along the branch when the commit is not cached yet. */
const REF_DEPTH = 1000;

export async function readGitSource(spec: GitSourceSpec, opts: ReadGitOptions = {}): Promise<GitSourceRead> {
  const url = checkGitUrl(spec.url);
  const gitdir = remoteCacheDir(opts.cacheDir ?? (await gitCacheDir(process.env)), url);
  await mkdir(gitdir, { recursive: true, mode: 0o700 });
  const token = opts.token;
  const home = new URL(url).origin;
  const access = remoteAccess({
    // Without a policy (the CLI), the user's own git host on a private network is fine.
    policy: opts.policy ?? addressPolicy({ allowPrivate: true }),
    maxBytes: opts.maxFetchBytes ?? DEFAULT_MAX_FETCH_BYTES,
    // The token goes to the repository's own origin, never elsewhere.
    ...(token
      ? {
          credential: {
            token,
            username: opts.username ?? 'x-access-token',
            allowed: (u: URL) => u.origin === home,
          },
        }
      : {}),
    refused: 'cancel',
  });
  const fetchBranch = async (depth: number) => {
    try {
      return await fetchRemoteBranch({
        gitdir,
        remote: { name: 'origin' },
        branch: spec.branch,
        depth,
        access,
      });
    } catch (error) {
      if (!opts.policy && error instanceof SvcError && error.code === 'SOURCE_TOO_LARGE') {
        // Named after the repository, not the request of the protocol that overflowed.
        const max = opts.maxFetchBytes ?? DEFAULT_MAX_FETCH_BYTES;
        throw new SvcError('SOURCE_TOO_LARGE', `fetching ${spec.url} brought more than ${max} bytes`, {
          place: { url: spec.url },
        });
      }
      throw fetchError(error, spec, Boolean(token), opts.credentialHint ?? 'SVC_GIT_TOKEN');
    }
  };
  const cache = {};
  // One process at a time fetches into a cache (isomorphic-git does not lock its refs and shallow file).
  const commit = await withLock(gitdir, async () => {
    // The cache is named after the URL, so its one remote never changes.
    if (!fs.existsSync(join(gitdir, 'HEAD'))) await initRemoteCache(gitdir, url);
    if (!opts.ref) return fetchBranch(1);
    // Cached already, else maybe the head, else somewhere down the branch.
    let found = await localCommit(gitdir, opts.ref, cache);
    for (const depth of [1, REF_DEPTH]) {
      if (found) break;
      await fetchBranch(depth);
      found = await localCommit(gitdir, opts.ref, cache);
    }
    return found ?? missingRef(spec, opts.ref);
  });

  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_SOURCE_BYTES;
  const origin = `git+${url}#${commit}:${spec.path}`;
  const docPath = cleanPath(spec.path, 'source.path');
  const bytes = await readBlob(gitdir, commit, docPath, cache, () =>
    notFound(`no file ${spec.path} in ${url} at ${short(commit)} (${spec.branch})`, spec.path),
  );
  if (bytes.byteLength > maxBytes) {
    throw new SvcError('SOURCE_TOO_LARGE', `${origin} is larger than the limit of ${maxBytes} bytes`, {
      place: { file: spec.path },
    });
  }
  const text = bytes.toString('utf8');
  const document: SourceText = {
    text: text.charCodeAt(0) === 0xfeff ? text.slice(1) : text,
    origin,
    bytes: bytes.byteLength,
  };
  const contentDir = spec.contentDir;
  const readContent = async () =>
    contentDir === undefined
      ? []
      : readContentTree(
          commitTree(gitdir, commit, cleanPath(contentDir, 'source.contentDir'), cache, spec),
          opts.content,
        );
  return { document, commit, readContent };
}

/** The tree under `root` of a commit, as the content reader walks it. */
function commitTree(
  gitdir: string,
  commit: string,
  root: string,
  cache: object,
  spec: GitSourceSpec,
): ContentTree {
  const at = (rel: string) => [root, rel].filter((p) => p !== '').join('/');
  return {
    async list(dir) {
      const filepath = at(dir);
      const tree = (await readTreeAt({ gitdir, cache }, commit, filepath))?.entries;
      if (!tree) {
        throw notFound(
          `no directory ${filepath || '.'} in ${spec.url} at ${short(commit)} (${spec.branch})`,
          filepath || '.',
        );
      }
      return tree.map(
        (e): TreeEntry => ({
          name: e.path,
          type:
            e.mode === '120000'
              ? 'symlink'
              : e.type === 'tree'
                ? 'dir'
                : e.type === 'blob'
                  ? 'file'
                  : 'other',
        }),
      );
    },
    read: (file) => readBlob(gitdir, commit, at(file), cache, () => notFound(`no file ${file}`, file)),
  };
}

async function readBlob(
  gitdir: string,
  commit: string,
  filepath: string,
  cache: object,
  missing: () => SvcError,
): Promise<Buffer> {
  const blob = await readBlobAt({ gitdir, cache }, commit, filepath);
  if (!blob) throw missing();
  return Buffer.from(blob.buffer, blob.byteOffset, blob.byteLength);
}

async function localCommit(gitdir: string, ref: string, cache: object): Promise<string | undefined> {
  if (!/^[0-9a-f]{4,40}$/i.test(ref)) {
    throw new SvcError('USAGE', `--ref takes a commit id (hex), not "${ref}"`, { place: { field: 'ref' } });
  }
  try {
    return await resolveCommit({ gitdir, cache }, ref.toLowerCase());
  } catch {
    return undefined;
  }
}

function missingRef(spec: GitSourceSpec, ref: string): never {
  throw new SvcError(
    'SOURCE_NOT_FOUND',
    `commit ${ref} is not among the last ${REF_DEPTH} commits of ${spec.branch} in ${spec.url}`,
    { place: { url: spec.url, field: 'ref' } },
  );
}

/** A repository path: '/' separated, no '..', no leading '/'; '.' is the root (''). */
function cleanPath(path: string, field: string): string {
  const clean = posix.normalize(path.replace(/\\/g, '/')).replace(/^\/+|\/+$/g, '');
  if (clean === '.' || clean === '') return '';
  if (clean === '..' || clean.startsWith('../')) {
    throw new SvcError('USAGE', `${path} points outside the repository`, { place: { field } });
  }
  return clean;
}

function fetchError(error: unknown, spec: GitSourceSpec, withToken: boolean, hint: string): SvcError {
  if (error instanceof SvcError) return error;
  const status = (error as { data?: { statusCode?: number } })?.data?.statusCode;
  const place = { url: spec.url };
  // onAuth/onAuthFailure cancel rather than retry: the server asked for credentials we lack or it refused.
  if (status === 401 || status === 403 || isGitError(error, 'UserCanceledError')) {
    return new SvcError(
      'SOURCE_UNREACHABLE',
      withToken
        ? `${spec.url} refused the token; check ${hint} and its access to the repository`
        : `${spec.url} needs credentials; set ${hint} to a token that can read the repository`,
      { place, ...(status ? { details: [`status ${status}`] } : {}) },
    );
  }
  if (status !== undefined) {
    return new SvcError('SOURCE_UNREACHABLE', `fetching ${spec.url} failed with HTTP ${status}`, {
      place,
      details: [`status ${status}`],
    });
  }
  if (isGitError(error, 'NotFoundError')) {
    return notFound(`${spec.url} has no branch ${spec.branch}`, undefined, place);
  }
  const inner = (error as { code?: string; cause?: { code?: string } }) ?? {};
  const reason = inner.cause?.code ?? (typeof inner.code === 'string' ? inner.code : 'network error');
  return new SvcError('SOURCE_UNREACHABLE', `could not fetch ${spec.branch} from ${spec.url}: ${reason}`, {
    place,
    cause: error,
  });
}

function notFound(message: string, file?: string, place?: { url: string }): SvcError {
  return new SvcError('SOURCE_NOT_FOUND', message, { place: place ?? (file ? { file } : {}) });
}

function isGitError(error: unknown, code: string): boolean {
  return (error as { code?: string })?.code === code;
}

function short(commit: string): string {
  return commit.slice(0, 12);
}
