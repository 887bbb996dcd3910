/**
 * Which source an import reads and how: the document given on the command line, the folder's
 * OpenAPI location, a git repository (through SVC_GIT_TOKEN or a stored connection), or a raw
 * URL template. The orchestrator asks this for the location to record, the content directory,
 * and a `read()` that performs the I/O only when the import gets that far.
 */
import { SvcError } from '../../core/svc-error.js';
import type { Source } from '../../schemas/types.js';
import type { GitAccess, GitSource } from '../sources/git-access.js';
import type { RawFile } from '../sources/content-source.js';
import { gitLocation } from '../sources/git-url.js';
import { readOpenApiSource, type SourceText } from '../sources/index.js';
import { expandRawUrl, readRawUrlSource } from '../sources/raw-url-source.js';

export type { GitAccess, GitSource } from '../sources/git-access.js';

export interface SourceRead {
  document: SourceText;
  /** Git sources: the commit read. */
  commit?: string;
  /** Git sources: the content directories of that commit (else they are read from disk). */
  readContent?: () => Promise<RawFile[]>;
}

export interface SourcePlan {
  /** What history and reports name ('' when the source has no document). */
  location: string;
  contentDir?: string;
  /** A raw URL: tools only (spec 2.5 rule 9). */
  toolsOnly: boolean;
  read(): Promise<SourceRead>;
}

export interface PlanOptions {
  dir: string;
  /** --openapi: wins over any recorded source. */
  location?: string;
  /** --content: a directory on disk (not for git sources, whose content is in the repository). */
  contentDir?: string;
  /** --ref: a commit of a git source's branch. */
  ref?: string;
  git?: GitAccess;
}

/** Throws a USAGE SvcError for options the source cannot take. */
export function planSource(source: Source, opts: PlanOptions): SourcePlan {
  const git = !opts.location && source.kind === 'git' ? source : undefined;
  const repo = git && git.provider !== 'raw' ? git : undefined;
  if (repo && opts.contentDir !== undefined) {
    throw new SvcError(
      'USAGE',
      "a git source's content directory is a directory of the repository: set source.contentDir in config.yaml",
      { place: { field: 'source.contentDir' } },
    );
  }
  if (opts.ref !== undefined && !repo) {
    throw new SvcError('USAGE', '--ref applies to a git repository source only', { place: { field: 'ref' } });
  }
  if (repo) return repoPlan(repo, opts);
  if (git?.rawUrlTemplate) {
    const url = expandRawUrl({ ...git, rawUrlTemplate: git.rawUrlTemplate });
    return {
      location: url,
      toolsOnly: true,
      read: async () => {
        // A stored token connection, else SVC_GIT_TOKEN.
        const token =
          git.connection && opts.git?.credentials
            ? (await opts.git.credentials({ ...git, repository: url })).token
            : opts.git?.token;
        if (token) opts.git?.allowToken?.(url);
        try {
          const document = await readRawUrlSource(
            { ...git, rawUrlTemplate: git.rawUrlTemplate as string },
            {
              cwd: opts.dir,
              ...(token ? { token } : {}),
              ...(opts.git?.policy ? { policy: opts.git.policy } : {}),
            },
          );
          return { document };
        } catch (error) {
          throw refusedRawUrl(error, url, Boolean(token), opts.git?.credentialHint);
        }
      },
    };
  }
  const location = opts.location ?? (source.kind === 'openapi' ? source.location : '');
  const contentDir = opts.contentDir ?? (source.kind === 'openapi' ? source.contentDir : undefined);
  return {
    location,
    ...(contentDir !== undefined ? { contentDir } : {}),
    toolsOnly: false,
    read: async () => ({
      document: await readOpenApiSource(location, {
        cwd: opts.dir,
        ...(opts.git?.policy ? { policy: opts.git.policy } : {}),
      }),
    }),
  };
}

function repoPlan(repo: GitSource, opts: PlanOptions): SourcePlan {
  // owner/name (github), a GitLab project path, or the repository's URL (provider git).
  const repository = repo.repository ?? repo.project;
  if (!repository) {
    throw new SvcError('USAGE', 'the git source names no repository (source.repository)', {
      place: { field: 'source.repository' },
    });
  }
  const contentDir = repo.contentDir;
  return {
    location: gitLocation({
      url: repo.connection ? `${repo.connection}:${repository}` : repository,
      branch: repo.branch,
      path: repo.path,
    }),
    ...(contentDir !== undefined ? { contentDir } : {}),
    toolsOnly: false,
    read: async () => {
      let access: { url: string; username?: string; token?: string } = {
        url: repository,
        ...(opts.git?.token ? { token: opts.git.token } : {}),
        ...(opts.git?.token && opts.git.username ? { username: opts.git.username } : {}),
      };
      if (repo.connection) {
        if (!opts.git?.credentials) {
          throw new SvcError(
            'USAGE',
            `the source reads through the git connection ${repo.connection}, which is not available here`,
            { place: { field: 'source.connection' } },
          );
        }
        access = await opts.git.credentials(repo);
      }
      if (access.token) opts.git?.allowToken?.(access.url);
      // Loaded only for a git source: other imports do not pay for isomorphic-git.
      const { readGitSource } = await import('../sources/git-source.js');
      const read = await readGitSource(
        {
          url: access.url,
          branch: repo.branch,
          path: repo.path,
          ...(contentDir !== undefined ? { contentDir } : {}),
        },
        {
          ...(opts.ref ? { ref: opts.ref } : {}),
          ...(access.token ? { token: access.token } : {}),
          ...(access.username ? { username: access.username } : {}),
          ...(opts.git?.cacheDir ? { cacheDir: opts.git.cacheDir } : {}),
          ...(opts.git?.policy ? { policy: opts.git.policy } : {}),
          ...(opts.git?.credentialHint ? { credentialHint: opts.git.credentialHint } : {}),
        },
      );
      return { document: read.document, commit: read.commit, readContent: read.readContent };
    },
  };
}

/** A raw URL's 401/403, saying which credential is missing or refused (the URL is already named). */
function refusedRawUrl(error: unknown, url: string, withToken: boolean, hint = 'SVC_GIT_TOKEN'): unknown {
  if (!(error instanceof SvcError)) return error;
  const status = error.details.find((d) => /^status 40[13]$/.test(d));
  if (!status) return error;
  return new SvcError(
    'SOURCE_UNREACHABLE',
    withToken
      ? `${url} refused the token (${status}); check ${hint} and its access to the file`
      : `${url} needs credentials (${status}); set ${hint} to a token that can read it (sent as Bearer)`,
    { place: { url }, details: [status], cause: error },
  );
}
