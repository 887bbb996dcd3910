/**
 * The action's inputs, read the way the runner passes them: INPUT_<NAME> with the name upper-cased and
 * spaces turned into underscores (hyphens are kept, so `fail-on` arrives as INPUT_FAIL-ON). Defaults repeat
 * action.yml's so that runAction behaves the same when run outside a runner (tests, local use).
 */
import { SvcError } from '../../core/svc-error.js';
import { DEFAULT_COMMIT_MESSAGE } from '../../generator/import/import-commit.js';

export type ActionMode = 'auto' | 'pull_request' | 'merge' | 'check';
export type FailOn = 'breaking' | 'warning' | 'none';

export interface ActionInputs {
  /** Glob patterns of server folders, relative to the repository root. */
  folders: string[];
  mode: ActionMode;
  failOn: FailOn;
  /** First line of the re-import commit; the action appends the summary and its marker trailer. */
  commitMessage: string;
  token: string;
  /**
   * Credential for folders whose source is a private git repository or raw URL (SVC_GIT_TOKEN's
   * rules): never written, logged or commented; '' when not given.
   */
  sourceToken: string;
  /**
   * The Basic-auth user sent with `sourceToken` to a git repository ('' → `x-access-token`, GitHub's
   * convention; some hosts want their own, such as Bitbucket's `x-token-auth` or a real account name).
   */
  sourceUsername: string;
}

export const DEFAULT_FOLDERS = 'mcp/*';
export { DEFAULT_COMMIT_MESSAGE };

const MODES: readonly ActionMode[] = ['auto', 'pull_request', 'merge', 'check'];
const FAIL_ON: readonly FailOn[] = ['breaking', 'warning', 'none'];

export type Env = Readonly<Record<string, string | undefined>>;

export function getInput(env: Env, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** Patterns separated by newlines or commas; blank entries and `./` prefixes dropped. */
export function splitPatterns(value: string): string[] {
  return value
    .split(/[\n,]/)
    .map((p) =>
      p
        .trim()
        .replace(/^\.\/+/, '')
        .replace(/\/+$/, ''),
    )
    .filter((p) => p.length > 0);
}

export function readInputs(env: Env): ActionInputs {
  const folders = splitPatterns(getInput(env, 'folders') || DEFAULT_FOLDERS);
  const mode = (getInput(env, 'mode') || 'auto') as ActionMode;
  if (!MODES.includes(mode)) {
    throw new SvcError('USAGE', `input "mode" must be one of ${MODES.join(', ')}; got "${mode}"`, {
      place: { field: 'mode' },
    });
  }
  const failOn = (getInput(env, 'fail-on') || 'breaking') as FailOn;
  if (!FAIL_ON.includes(failOn)) {
    throw new SvcError('USAGE', `input "fail-on" must be one of ${FAIL_ON.join(', ')}; got "${failOn}"`, {
      place: { field: 'fail-on' },
    });
  }
  for (const p of folders) {
    if (p.startsWith('/') || p.split('/').includes('..')) {
      throw new SvcError('USAGE', `input "folders": "${p}" must stay inside the repository`, {
        place: { field: 'folders' },
      });
    }
  }
  return {
    folders,
    mode,
    failOn,
    commitMessage: getInput(env, 'commit-message') || DEFAULT_COMMIT_MESSAGE,
    token: getInput(env, 'github-token') || env['GITHUB_TOKEN'] || '',
    sourceToken: getInput(env, 'source-token'),
    sourceUsername: getInput(env, 'source-username'),
  };
}
