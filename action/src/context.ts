/**
 * What the runner tells an action about the run, read from the environment and the event file
 * (GITHUB_EVENT_PATH). GITHUB_API_URL is honoured so that tests can point the action at a local fake.
 */
import { readFile } from 'node:fs/promises';
import { SvcError } from '../../core/svc-error.js';
import type { ActionMode, Env } from './inputs.js';

export interface PullRequestInfo {
  number: number;
  baseSha: string;
  headSha: string;
  baseRef: string;
}

export interface RunContext {
  eventName: string;
  owner: string;
  repo: string;
  apiUrl: string;
  serverUrl: string;
  workspace: string;
  /** The commit the workflow runs on (GITHUB_SHA). */
  sha: string;
  /** refs/heads/<branch> for a push. */
  ref: string;
  pullRequest?: PullRequestInfo;
  /** GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT: the run whose page shows the job summary. */
  runId?: string;
  runAttempt?: string;
  /** The pushed head commit's message, when the event carries it. */
  headCommitMessage?: string;
}

export async function readRunContext(env: Env, cwd: string): Promise<RunContext> {
  const repository = env['GITHUB_REPOSITORY'] ?? '';
  const [owner = '', repo = ''] = repository.split('/');
  const eventName = env['GITHUB_EVENT_NAME'] ?? '';
  let event: Record<string, unknown> = {};
  const eventPath = env['GITHUB_EVENT_PATH'];
  if (eventPath) {
    try {
      event = JSON.parse(await readFile(eventPath, 'utf8')) as Record<string, unknown>;
    } catch (cause) {
      throw new SvcError('USAGE', 'cannot read the event payload', { place: { file: eventPath }, cause });
    }
  }
  const pr = event['pull_request'] as
    | { number?: number; base?: { sha?: string; ref?: string }; head?: { sha?: string } }
    | undefined;
  const pullRequest =
    pr?.number && pr.base?.sha && pr.head?.sha
      ? { number: pr.number, baseSha: pr.base.sha, headSha: pr.head.sha, baseRef: pr.base.ref ?? '' }
      : undefined;
  const headCommit = event['head_commit'] as { message?: string } | undefined;
  return {
    eventName,
    owner,
    repo,
    apiUrl: (env['GITHUB_API_URL'] || 'https://api.github.com').replace(/\/+$/, ''),
    serverUrl: (env['GITHUB_SERVER_URL'] || 'https://github.com').replace(/\/+$/, ''),
    workspace: env['GITHUB_WORKSPACE'] || cwd,
    sha: env['GITHUB_SHA'] ?? '',
    ref: env['GITHUB_REF'] ?? '',
    ...(env['GITHUB_RUN_ID'] ? { runId: env['GITHUB_RUN_ID'] } : {}),
    ...(env['GITHUB_RUN_ATTEMPT'] ? { runAttempt: env['GITHUB_RUN_ATTEMPT'] } : {}),
    ...(pullRequest ? { pullRequest } : {}),
    ...(headCommit?.message !== undefined ? { headCommitMessage: headCommit.message } : {}),
  };
}

/** `auto` follows the event: a pull request gets a comment, a push to a branch re-imports, anything else checks. */
export function resolveMode(
  mode: ActionMode,
  ctx: Pick<RunContext, 'eventName' | 'ref'>,
): Exclude<ActionMode, 'auto'> {
  if (mode !== 'auto') return mode;
  if (ctx.eventName === 'pull_request' || ctx.eventName === 'pull_request_target') return 'pull_request';
  if (ctx.eventName === 'push' && ctx.ref.startsWith('refs/heads/')) return 'merge';
  return 'check';
}
