/**
 * Which server folders the action looks at: directories holding a config.yaml whose path matches one of the
 * `folders` globs, and, for a pull request, which of them the change touches (their own files, their content
 * directory, or their source document when it is a file of the same repository).
 */
import { posix } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { serverTitle } from '../../folder/server-title.js';

/** `*` and `?` stay inside one path segment; `**` spans any number of segments. */
export function globToRegExp(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i] ?? '';
    if (c === '*' && pattern[i + 1] === '*') {
      const slash = pattern[i + 2] === '/';
      re += slash ? '(?:.*/)?' : '.*';
      i += slash ? 2 : 1;
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

/** Folder paths (sorted) among `files` that contain config.yaml and match a pattern. `.` stands for the root. */
export function findServerFolders(files: Iterable<string>, patterns: readonly string[]): string[] {
  const regs = patterns.map((p) => globToRegExp(p === '.' ? '' : p));
  const found = new Set<string>();
  for (const file of files) {
    if (posix.basename(file) !== 'config.yaml') continue;
    const dir = posix.dirname(file) === '.' ? '' : posix.dirname(file);
    if (dir.split('/').includes('.svc')) continue;
    if (regs.some((r) => r.test(dir))) found.add(dir === '' ? '.' : dir);
  }
  return [...found].sort();
}

export interface FolderSources {
  /** Repository-relative path of the source document when it lives in this repository. */
  document?: string;
  /** Repository-relative content directory, when one is configured. */
  contentDir?: string;
  /** The source is fetched over http(s): a re-import can bring changes nobody committed. */
  remote: boolean;
}

function insideRepo(folder: string, relative: string): string | undefined {
  const joined = posix.normalize(posix.join(folder === '.' ? '' : folder, relative));
  return joined.startsWith('../') || joined === '..' || posix.isAbsolute(joined) ? undefined : joined;
}

/** Reads what config.yaml says about where the folder's inputs live. Tolerant: a broken config yields none. */
export function folderSources(
  folder: string,
  configText: string | undefined,
  repository: string,
): FolderSources {
  let config: unknown;
  try {
    config = configText === undefined ? undefined : parseYaml(configText);
  } catch {
    return { remote: false };
  }
  const source = (config as { source?: Record<string, unknown> } | undefined)?.source;
  if (!source || typeof source !== 'object') return { remote: false };
  const out: FolderSources = { remote: false };
  if (source['kind'] === 'openapi' && typeof source['location'] === 'string') {
    const location = source['location'];
    if (/^https?:\/\//i.test(location)) out.remote = true;
    else {
      const doc = insideRepo(folder, location);
      if (doc) out.document = doc;
    }
    if (typeof source['contentDir'] === 'string') {
      const dir = insideRepo(folder, source['contentDir']);
      if (dir) out.contentDir = dir;
    }
  } else if (source['kind'] === 'git') {
    const sameRepo =
      source['provider'] === 'github' &&
      typeof source['repository'] === 'string' &&
      source['repository'].toLowerCase() === repository.toLowerCase();
    if (sameRepo && typeof source['path'] === 'string')
      out.document = posix.normalize(source['path']).replace(/^\/+/, '');
    else out.remote = true;
  } else if (source['kind'] === 'app_builder') out.remote = true;
  return out;
}

function under(file: string, dir: string): boolean {
  return dir === '.' || dir === '' || file === dir || file.startsWith(`${dir}/`);
}

/** Whether a changed path touches the folder, its content directory or its in-repository source document. */
export function touches(folder: string, sources: FolderSources, changed: readonly string[]): boolean {
  return changed.some(
    (f) =>
      under(f, folder) ||
      (sources.document !== undefined && f === sources.document) ||
      (sources.contentDir !== undefined && under(f, sources.contentDir)),
  );
}

/**
 * The name people read for a folder in headings: the app's name (not the server's "Default"), with a
 * branch server's own name beside it, as clients show it (serverTitle); undefined when unreadable.
 */
export function serverName(configText: string | undefined): string | undefined {
  if (configText === undefined) return undefined;
  try {
    const config = parseYaml(configText) as
      | { server?: { name?: unknown }; app?: { name?: unknown } }
      | undefined;
    const server = typeof config?.server?.name === 'string' ? config.server.name : undefined;
    const app = typeof config?.app?.name === 'string' ? config.app.name : undefined;
    if (app === undefined) return server;
    return serverTitle({ app: { name: app }, server: { name: server ?? '' } } as Parameters<
      typeof serverTitle
    >[0]);
  } catch {
    return undefined;
  }
}
