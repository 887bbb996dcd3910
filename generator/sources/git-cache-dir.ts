/**
 * The git cache SVC_CACHE_DIR names, if it names one. `off` names none: it turns off the schema
 * check cache (folder/schema-check-cache.ts), and a git source needs a cache all the same.
 * Apart from git-source.ts so the CLI reads it without loading isomorphic-git.
 */
export function givenGitCacheDir(env: Record<string, string | undefined>): string | undefined {
  const own = env.SVC_CACHE_DIR?.trim();
  return own && own !== 'off' ? own : undefined;
}
