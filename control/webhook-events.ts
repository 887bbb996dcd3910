/**
 * What a verified webhook asks for, read from its payload (pure). Only a merge into the tracked
 * branch re-imports: GitHub `pull_request` closed with `merged: true` (spec 4.3), GitLab merge
 * request hooks with `object_attributes.action == "merge"`. Anything else is acknowledged and ignored.
 */

export type HookDecision = { kind: 'merge'; branch: string } | { kind: 'ignore'; reason: string };

type Json = Record<string, unknown>;
const obj = (v: unknown): Json => (v !== null && typeof v === 'object' ? (v as Json) : {});

export function githubDecision(event: string | undefined, payload: unknown): HookDecision {
  if (event === 'ping') return { kind: 'ignore', reason: 'ping' };
  if (event !== 'pull_request')
    return { kind: 'ignore', reason: `event ${event ?? '(none)'} is not pull_request` };
  const body = obj(payload);
  const pr = obj(body.pull_request);
  if (body.action !== 'closed')
    return { kind: 'ignore', reason: `pull request ${String(body.action)}, not closed` };
  if (pr.merged !== true) return { kind: 'ignore', reason: 'pull request closed without merging' };
  const branch = obj(pr.base).ref;
  if (typeof branch !== 'string') return { kind: 'ignore', reason: 'no base branch in the payload' };
  return { kind: 'merge', branch };
}

export function gitlabDecision(event: string | undefined, payload: unknown): HookDecision {
  const body = obj(payload);
  if (event !== 'Merge Request Hook' && body.object_kind !== 'merge_request') {
    return { kind: 'ignore', reason: `event ${event ?? '(none)'} is not a merge request hook` };
  }
  const attributes = obj(body.object_attributes);
  if (attributes.action !== 'merge') {
    return { kind: 'ignore', reason: `merge request ${String(attributes.action)}, not merge` };
  }
  const branch = attributes.target_branch;
  if (typeof branch !== 'string') return { kind: 'ignore', reason: 'no target branch in the payload' };
  return { kind: 'merge', branch };
}

/** Ways a git host names a repository, normalised for comparison with a registered URL. */
export function normaliseRepositoryUrl(url: string): string {
  return url
    .trim()
    .toLowerCase()
    .replace(/^git@([^:]+):/, 'ssh://$1/')
    .replace(/^[a-z+]+:\/\/([^@/]+@)?/, '')
    .replace(/\/+$/, '')
    .replace(/\.git$/, '');
}

/** The repository URLs a GitHub payload names. */
export function githubRepositoryUrls(payload: unknown): string[] {
  const repository = obj(obj(payload).repository);
  return ['clone_url', 'html_url', 'git_url', 'ssh_url', 'svn_url']
    .map((k) => repository[k])
    .filter((v): v is string => typeof v === 'string')
    .map(normaliseRepositoryUrl);
}
