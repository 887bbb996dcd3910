/**
 * Which paths of a server folder svc owns, and which relative paths are safe to write.
 * Everything else in the folder (a .git directory, a user's notes, a .env) belongs to the
 * user and is never touched by the writer.
 */
import { BOOKKEEPING_DIR } from './model.js';

/** Top-level entries the writer replaces as a whole. */
export const MANAGED_FILES = ['config.yaml', 'README.md', 'docker-compose.yml', '.env.example'] as const;
export const MANAGED_DIRS = [
  'Tools',
  'Skills',
  'Prompts',
  'Resources',
  'Docs',
  'Widgets',
  BOOKKEEPING_DIR,
] as const;
export const MANAGED_TOP = [...MANAGED_FILES, ...MANAGED_DIRS] as const;

export function isManagedPath(path: string): boolean {
  if ((MANAGED_FILES as readonly string[]).includes(path)) return true;
  const slash = path.indexOf('/');
  return slash > 0 && (MANAGED_DIRS as readonly string[]).includes(path.slice(0, slash));
}

/**
 * Why a folder-relative path is unsafe, or undefined when it is safe: '/' separators only,
 * relative, no empty, "." or ".." segment, no backslash, drive letter or control character.
 */
export function unsafePathReason(path: string): string | undefined {
  if (path === '') return 'the path is empty';
  if (path.includes('\\')) return 'the path contains a backslash';
  if (path.startsWith('/') || /^[A-Za-z]:/.test(path)) return 'the path is absolute';
  if (/[\u0000-\u001f\u007f]/.test(path)) return 'the path contains a control character';
  for (const segment of path.split('/')) {
    if (segment === '') return 'the path has an empty segment';
    if (segment === '.' || segment === '..') return `the path has a "${segment}" segment`;
  }
  return undefined;
}
