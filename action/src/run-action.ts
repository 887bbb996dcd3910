/**
 * The action, with everything it touches passed in: the environment, a fetch for the GitHub REST API,
 * the svc engine, a logger. main.ts only wires process.env and process.exitCode to it.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Octokit } from '@octokit/rest';
import { isSvcError } from '../../core/svc-error.js';
import type { GitAccess } from '../../generator/import/source-reader.js';
import { givenGitAccess } from '../../generator/sources/git-given-credential.js';
import {
  COMMENT_MARKER,
  type CommentOutcome,
  fitComment,
  MAX_SUMMARY_CHARS,
  upsertComment,
} from './comment.js';
import { type RunContext, readRunContext, resolveMode } from './context.js';
import type { SvcEngine } from './engine.js';
import { type FolderResult, hasSomethingToReport } from './folder-result.js';
import { createRedactor } from '../../runtime/redact.js';
import { type ActionInputs, type Env, readInputs } from './inputs.js';
import { runMerge } from './merge-mode.js';
import { writeOutputs, writeSummary } from './outputs.js';
import { runPullRequest } from './pull-request-mode.js';
import { runCheck } from './check-mode.js';
import { sourceTokenAllowedOn, withheldOnEvent } from './token-events.js';

/**
 * Blanks the secrets out of a text with the runtime's redactor, so a token is caught in its encoded
 * forms (the base64 of `x-access-token:<token>` in a Basic header) as well as raw.
 */
export function redact(text: string, secrets: readonly string[] = []): string {
  return createRedactor(secrets)(text);
}

export interface ActionDeps {
  env: Env;
  /** Working directory when GITHUB_WORKSPACE is not set. */
  cwd?: string;
  /** fetch used for the GitHub REST API (Octokit's `request.fetch`). */
  fetch?: typeof fetch;
  engine: SvcEngine;
  log?: (line: string) => void;
}

export interface ActionResult {
  mode: 'pull_request' | 'merge' | 'check';
  exitCode: 0 | 1;
  outputs: { changed: string; 'breaking-count': string; 'report-path': string };
  results: FolderResult[];
  /** Comment created/updated (pull_request mode). */
  comment?: { action: string; id?: number };
  /** The re-import commit (merge mode). */
  commit?: string;
  skipped?: string;
}

export interface ModeEnv {
  inputs: ActionInputs;
  ctx: RunContext;
  engine: SvcEngine;
  log: (line: string) => void;
  /**
   * How re-imports read git and raw-URL sources: with the source-token input, when given and (check and
   * merge modes) the event cannot carry a pull request's code.
   */
  sourceAccess: GitAccess;
  /** The same without the token, for a source the pull request itself changes. */
  withheldSourceAccess: GitAccess;
}

const SOURCE_TOKEN_HINT = "the action's source-token input";

/** Both ways of reading sources, from the source-token input; repositories cached in RUNNER_TEMP. */
function sourceAccesses(
  inputs: ActionInputs,
  ctx: RunContext,
  env: Env,
  mode: ActionResult['mode'],
): Pick<ModeEnv, 'sourceAccess' | 'withheldSourceAccess'> {
  const common = {
    githubUrl: ctx.serverUrl,
    ...(env['RUNNER_TEMP'] ? { cacheDir: join(env['RUNNER_TEMP'], 'svc-git-cache') } : {}),
  };
  const withheldSourceAccess = givenGitAccess(undefined, {
    ...common,
    hint: `${SOURCE_TOKEN_HINT} (withheld here: this pull request changes the folder's source, so it is used after the merge only)`,
  });
  // Check and merge modes read the checked-out config.yaml with no base to compare it with.
  if (mode !== 'pull_request' && !sourceTokenAllowedOn(ctx.eventName))
    return {
      sourceAccess: givenGitAccess(undefined, {
        ...common,
        hint: `${SOURCE_TOKEN_HINT} (${withheldOnEvent(ctx.eventName)})`,
      }),
      withheldSourceAccess,
    };
  return {
    sourceAccess: givenGitAccess(
      inputs.sourceToken ? { token: inputs.sourceToken, username: inputs.sourceUsername } : undefined,
      {
        ...common,
        hint: SOURCE_TOKEN_HINT,
      },
    ),
    withheldSourceAccess,
  };
}

/** The runner's workflow command that hides a value in every later log line (what @actions/core's setSecret sends). */
export function addMaskLine(value: string): string {
  return `::add-mask::${value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}`;
}

function failLine(message: string): string {
  return `::error::${message.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A')}`;
}

/** The first few reasons, so the failing step's own line says why (the summary lists them all). */
function because(results: readonly FolderResult[]): string {
  const reasons = results.flatMap((r) => [
    ...r.toolChanges
      .filter((c) => c.level === 'breaking')
      .map((c) => `${r.folder}: tool ${c.name} ${c.kind.replace(/^tool-/, '').replace(/-/g, ' ')}`),
    ...(r.reimport?.hits ?? []).map((h) => `${r.folder}: ${h}`),
  ]);
  if (reasons.length === 0) return '';
  return `: ${reasons.slice(0, 3).join('; ')}${reasons.length > 3 ? `; and ${reasons.length - 3} more` : ''}`;
}

export function shouldFail(
  failOn: ActionInputs['failOn'],
  results: readonly FolderResult[],
): string | undefined {
  const errors = results.filter((r) => r.error);
  if (errors.length > 0)
    return `svc: ${errors.length} folder(s) failed: ${errors.map((r) => r.folder).join(', ')}`;
  const breaking = results.reduce((n, r) => n + r.breaking, 0);
  const warnings = results.reduce((n, r) => n + r.warnings, 0);
  if (failOn === 'none') return undefined;
  if (breaking > 0)
    return `svc: ${breaking} breaking change(s) hit enabled tools (fail-on: ${failOn})${because(results)}`;
  if (failOn === 'warning' && warnings > 0) return `svc: ${warnings} warning(s) (fail-on: warning)`;
  return undefined;
}

export async function runAction(deps: ActionDeps): Promise<ActionResult> {
  const log = deps.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const env = deps.env;
  let inputs: ActionInputs;
  let ctx: RunContext;
  try {
    inputs = readInputs(env);
    ctx = await readRunContext(env, resolve(deps.cwd ?? process.cwd()));
  } catch (error) {
    log(failLine(isSvcError(error) ? error.describe() : String(error)));
    return {
      mode: 'check',
      exitCode: 1,
      outputs: { changed: 'false', 'breaking-count': '0', 'report-path': '' },
      results: [],
    };
  }
  // Before anything else is printed: the runner then hides the value wherever it shows up.
  if (inputs.sourceToken) log(addMaskLine(inputs.sourceToken));
  const mode = resolveMode(inputs.mode, ctx);
  const secrets = [inputs.token, inputs.sourceToken];
  const safeLog = (line: string) => {
    let out = line;
    for (const s of secrets) if (s) out = out.split(s).join('***');
    log(out);
  };
  safeLog(`svc: mode ${mode} (${inputs.mode}), folders ${inputs.folders.join(', ')}`);
  if (inputs.sourceToken && mode !== 'pull_request' && !sourceTokenAllowedOn(ctx.eventName))
    safeLog(`::warning::svc: source-token ${withheldOnEvent(ctx.eventName)}`);
  const modeEnv: ModeEnv = {
    inputs,
    ctx,
    engine: deps.engine,
    log: safeLog,
    ...sourceAccesses(inputs, ctx, env, mode),
  };

  let result: Omit<ActionResult, 'outputs' | 'exitCode'> & { markdown: string; changed: boolean };
  try {
    if (mode === 'pull_request') {
      const octokit = new Octokit({
        auth: inputs.token || undefined,
        baseUrl: ctx.apiUrl,
        userAgent: 'svc-action',
        request: deps.fetch ? { fetch: deps.fetch } : {},
        log: { debug: () => {}, info: () => {}, warn: safeLog, error: safeLog },
      });
      const pr = await runPullRequest(modeEnv);
      const target = { owner: ctx.owner, repo: ctx.repo, issueNumber: ctx.pullRequest?.number ?? 0 };
      const touched = pr.results.length > 0;
      // No message carries a token; redacting anyway keeps a future one out of the public comment.
      const body = fitComment(
        `${COMMENT_MARKER}\n${redact(pr.comment, secrets)}`,
        'The full report is in the job summary.',
      );
      let outcome: CommentOutcome | { action: 'failed'; status: number };
      try {
        outcome = await upsertComment(octokit, target, body, { onlyIfExists: !touched });
        safeLog(`svc: pull request comment ${outcome.action}${'id' in outcome ? ` (#${outcome.id})` : ''}`);
      } catch (error) {
        // A read-only token (a pull request from a fork) cannot comment: report in the job summary instead.
        const status = (error as { status?: unknown }).status;
        if (status !== 403 && status !== 404) throw error;
        outcome = { action: 'failed', status };
        safeLog(
          `::warning::svc: cannot write the pull request comment (HTTP ${status}); the report is in the job summary`,
        );
      }
      result = {
        mode,
        results: pr.results,
        markdown: pr.markdown,
        changed: pr.results.some(hasSomethingToReport),
        comment: outcome,
      };
    } else if (mode === 'merge') {
      const merge = await runMerge(modeEnv, secrets);
      result = {
        mode,
        results: merge.results,
        markdown: merge.markdown,
        changed: merge.commit !== undefined,
        ...(merge.commit ? { commit: merge.commit } : {}),
        ...(merge.skipped ? { skipped: merge.skipped } : {}),
      };
    } else {
      const check = await runCheck(modeEnv);
      result = { mode, results: check.results, markdown: check.markdown, changed: check.changed };
    }
  } catch (error) {
    const message = isSvcError(error)
      ? error.describe()
      : error instanceof Error
        ? error.message
        : String(error);
    safeLog(failLine(`svc: ${message}`));
    await writeSummary(env, redact(`### svc\n\nThe action failed: ${message}`, secrets));
    return {
      mode,
      exitCode: 1,
      outputs: { changed: 'false', 'breaking-count': '0', 'report-path': '' },
      results: [],
    };
  }

  const breaking = result.results.reduce((n, r) => n + r.breaking, 0);
  const reportDir = env['RUNNER_TEMP'] || tmpdir();
  await mkdir(reportDir, { recursive: true });
  const reportPath = join(reportDir, 'svc-report.json');
  const report = {
    mode,
    changed: result.changed,
    breakingCount: breaking,
    ...(result.commit ? { commit: result.commit } : {}),
    ...(result.skipped ? { skipped: result.skipped } : {}),
    folders: result.results,
  };
  const markdown = redact(result.markdown, secrets);
  await writeFile(reportPath, redact(`${JSON.stringify(report, null, 2)}\n`, secrets), 'utf8');
  await writeFile(join(reportDir, 'svc-report.md'), markdown, 'utf8');
  const outputs = {
    changed: String(result.changed),
    'breaking-count': String(breaking),
    'report-path': reportPath,
  };
  await writeOutputs(env, outputs);
  await writeSummary(
    env,
    fitComment(
      markdown,
      'The whole report is `svc-report.md` beside the `report-path` output.',
      MAX_SUMMARY_CHARS,
    ),
  );
  const failure = shouldFail(inputs.failOn, result.results);
  if (failure) safeLog(failLine(failure));
  else safeLog(`svc: ${result.markdown.split('\n')[2] ?? ''}`);
  return { ...result, outputs, exitCode: failure ? 1 : 0 };
}
