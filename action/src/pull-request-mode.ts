/**
 * Pull-request mode: which server folders the pull request touches, and for each the committed change
 * (tools from Tools/*.yaml, endpoints from the .svc/ history) and what a re-import from its source would
 * bring. Base and head are compared as trees; the head is the checked-out commit.
 */
import { isDeepStrictEqual } from 'node:util';
import { posix, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { SvcError } from '../../core/svc-error.js';
import type { FolderFiles } from '../../folder/model.js';
import { loadFolder } from '../../folder/load-folder.js';
import { toolsListCost } from '../../folder/tools-list-cost.js';
import { findServerFolders, folderSources, serverName, touches } from './folders.js';
import { countFolder, type FolderResult } from './folder-result.js';
import {
  changedFiles,
  fetchCommitOf,
  listFiles,
  openLocalRepository,
  readFileAt,
  readFilesAt,
} from '../../generator/sources/git/index.js';
import { COMMENT_MARKER, MAX_COMMENT_CHARS } from './comment.js';
import type { RunContext } from './context.js';
import { renderResults } from './render.js';
import type { ModeEnv } from './run-action.js';
import { redactedGitError, workspaceRemote } from './workspace-git.js';
import { diffTools, enabledEndpoints, type ToolChange, type ToolViewCache } from './tool-changes.js';

/**
 * What the committed diff reads: config, tool files and the import history with its endpoint store. The
 * raw documents (Tools/openapi.json, .svc/specs/) can be tens of megabytes and are not needed.
 */
export function neededForDiff(path: string): boolean {
  if (path === 'config.yaml') return true;
  if (path.startsWith('Tools/')) return path.endsWith('.yaml');
  // Widgets are small, and an enabled one adds its URI to each tool that shows it in tools/list.
  if (path.startsWith('Widgets/')) return true;
  return path.startsWith('.svc/') && !path.startsWith('.svc/specs/');
}

export async function runPullRequest({
  inputs,
  ctx,
  engine,
  log,
  sourceAccess,
  withheldSourceAccess,
}: ModeEnv): Promise<{
  results: FolderResult[];
  /** Everything (the job summary). */
  markdown: string;
  /** The same within a comment's limit. */
  comment: string;
}> {
  const pr = ctx.pullRequest;
  if (!pr) throw new SvcError('USAGE', 'pull_request mode needs a pull_request event (GITHUB_EVENT_PATH)');
  const cwd = ctx.workspace;
  const head = 'HEAD';
  const repo = await openLocalRepository(cwd);
  await fetchCommitOf(repo, pr.baseSha, {
    remote: 'origin',
    branch: pr.baseRef,
    access: workspaceRemote(inputs.token, ctx.serverUrl),
  }).catch((error: unknown) => {
    throw redactedGitError(error, [inputs.token]);
  });
  const changed = await changedFiles(repo, pr.baseSha, head);
  const [baseList, headList] = await Promise.all([listFiles(repo, pr.baseSha), listFiles(repo, head)]);
  const folders = findServerFolders(new Set([...baseList, ...headList]), inputs.folders);
  const headSet = new Set(headList);
  const results: FolderResult[] = [];
  const enabled = new Map<string, Map<string, string>>();
  for (const folder of folders) {
    const prefix = folder === '.' ? '' : `${folder}/`;
    const existsAtHead = headSet.has(`${prefix}config.yaml`);
    // Only config.yaml decides whether the folder is touched; read the whole folder only then.
    const configText =
      (existsAtHead ? await readFileAt(repo, head, `${prefix}config.yaml`) : undefined) ??
      (await readFileAt(repo, pr.baseSha, `${prefix}config.yaml`));
    const sources = folderSources(folder, configText, `${ctx.owner}/${ctx.repo}`);
    if (!touches(folder, sources, changed)) continue;
    const [baseFiles, headFiles] = await Promise.all([
      readFilesAt(repo, pr.baseSha, folder === '.' ? '' : folder, neededForDiff),
      existsAtHead
        ? readFilesAt(repo, head, folder === '.' ? '' : folder, neededForDiff)
        : Promise.resolve({} as FolderFiles),
    ]);
    log(`svc: ${folder} is touched by the pull request`);
    const views: ToolViewCache = new Map();
    const toolChanges = diffTools(baseFiles, headFiles, views);
    let endpointChanges: FolderResult['endpointChanges'] = [];
    let error: string | undefined;
    try {
      endpointChanges = engine.endpointDiff(baseFiles, headFiles).changes;
    } catch (e) {
      error = `cannot diff the import history: ${e instanceof Error ? e.message : String(e)}`;
    }
    attributeToImport(toolChanges, endpointChanges);
    const hits = new Map([...enabledEndpoints(baseFiles, views), ...enabledEndpoints(headFiles, views)]);
    enabled.set(folder, hits);
    const result: FolderResult = { folder, toolChanges, endpointChanges, breaking: 0, warnings: 0 };
    const toolsList = toolsListChange(baseFiles, headFiles);
    if (toolsList) result.toolsList = toolsList;
    const name = serverName(configText);
    if (name) result.name = name;
    if (!existsAtHead) result.removed = true;
    else if (sources.remote || sources.document) {
      const reimport = await engine.reimport({
        dir: join(cwd, ...posix.normalize(folder).split('/')),
        dryRun: true,
        // The token goes only where the base branch already sent it: a pull request that points a
        // folder at another URL (or adds one) must not be able to collect it.
        git: sameSource(baseFiles['config.yaml'], headFiles['config.yaml'])
          ? sourceAccess
          : withheldSourceAccess,
      });
      result.reimport = reimport;
      if (reimport.status === 'failed') error = `re-import failed: ${reimport.error ?? reimport.summary}`;
    }
    if (error) result.error = error;
    Object.assign(result, countFolder(toolChanges, endpointChanges, new Set(hits.keys()), result.reimport));
    results.push(result);
  }
  const options = {
    title: 'svc · MCP server changes in this pull request',
    reimportHeading: 'A re-import from the source would bring',
    enabled,
    footer: `Compared ${pr.baseSha.slice(0, 7)} (base) with ${pr.headSha.slice(0, 7)} (head). This comment is updated on every push.`,
  };
  const markdown = renderResults(results, options);
  // The comment: every folder within its share of GitHub's limit, linking the full report (job summary).
  const comment = renderResults(results, {
    ...options,
    maxChars: MAX_COMMENT_CHARS - COMMENT_MARKER.length - 1,
    fullReport: fullReportLink(ctx),
  });
  return { results, markdown, comment };
}

/** What tools/list costs a client at the base and at the head, when the pull request changes it. */
export function toolsListChange(base: FolderFiles, head: FolderFiles): FolderResult['toolsList'] {
  const cost = (files: FolderFiles) => {
    if (files['config.yaml'] === undefined) return undefined;
    const loaded = loadFolder(files);
    return loaded.ok ? toolsListCost(loaded.folder) : undefined;
  };
  const before = cost(base);
  const after = cost(head);
  if (!after || (before && before.mode === after.mode && before.bytes === after.bytes)) return undefined;
  return { ...(before ? { before } : {}), after };
}

/**
 * A tool's input edited in the same pull request that commits a re-import changing its endpoint is the
 * import's doing, already counted with the endpoint change; only the rest are hand edits to review.
 */
export function attributeToImport(
  toolChanges: ToolChange[],
  endpointChanges: readonly FolderResult['endpointChanges'][number][],
): void {
  const moved = new Set(endpointChanges.map((c) => c.endpoint));
  for (const c of toolChanges) {
    if (c.kind !== 'tool-input-changed' || !moved.has(c.endpoint)) continue;
    c.level = 'info';
    if (c.detail) c.detail = c.detail.replace(/^hand edit to /, 'with the re-import: ');
  }
}

/** Where the full report of this run is: the run's page shows the job summary; svc-report.md is its file. */
export function fullReportLink(ctx: RunContext): string {
  const file = 'and in `svc-report.md` beside the `report-path` output, for `actions/upload-artifact`';
  if (!ctx.runId) return `the job summary of this workflow run ${file}`;
  const url = `${ctx.serverUrl}/${ctx.owner}/${ctx.repo}/actions/runs/${ctx.runId}${
    ctx.runAttempt && ctx.runAttempt !== '1' ? `/attempts/${ctx.runAttempt}` : ''
  }`;
  return `the job summary of [this workflow run](${url}) ${file}`;
}

/** Whether config.yaml names the same source at base and head (the commit it last read aside). */
export function sameSource(base: string | undefined, head: string | undefined): boolean {
  const sourceOf = (text: string | undefined): unknown => {
    if (text === undefined) return undefined;
    try {
      const source = (parseYaml(text) as { source?: Record<string, unknown> } | null)?.source;
      if (!source || typeof source !== 'object') return undefined;
      const { commit: _, ...rest } = source;
      return rest;
    } catch {
      return undefined;
    }
  };
  const before = sourceOf(base);
  return before !== undefined && isDeepStrictEqual(before, sourceOf(head));
}
