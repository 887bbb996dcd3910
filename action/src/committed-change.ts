/**
 * The committed change of one server folder between two commits, as pull_request mode computes it: tool
 * files compared (renames, removals, hand edits to inputSchema, locations and annotations) and the endpoint
 * diff of the .svc/ history. For CI systems without the action (the GitLab template runs it through
 * `svc diff <dir> --base <commit>`).
 */
import { countFolder, type FolderResult } from './folder-result.js';
import { openLocalRepository, readFilesAt } from '../../generator/sources/git/index.js';
import { historyEndpointDiff } from './history-diff.js';
import { attributeToImport, neededForDiff } from './pull-request-mode.js';
import { diffTools, enabledEndpoints, type ToolViewCache } from './tool-changes.js';

export interface CommittedChange {
  result: FolderResult;
  /** Endpoints ("METHOD /path") enabled tools call at base or head, with the tool's name. */
  enabled: Map<string, string>;
}

/** `folder` is relative to the repository root (`.` for the root); `head` defaults to HEAD. */
export async function committedChange(opts: {
  repoDir: string;
  folder: string;
  base: string;
  head?: string;
}): Promise<CommittedChange> {
  const dir = opts.folder === '.' ? '' : opts.folder;
  const repo = await openLocalRepository(opts.repoDir);
  const [baseFiles, headFiles] = await Promise.all([
    readFilesAt(repo, opts.base, dir, neededForDiff),
    readFilesAt(repo, opts.head ?? 'HEAD', dir, neededForDiff),
  ]);
  const views: ToolViewCache = new Map();
  const toolChanges = diffTools(baseFiles, headFiles, views);
  const result: FolderResult = {
    folder: opts.folder,
    toolChanges,
    endpointChanges: [],
    breaking: 0,
    warnings: 0,
  };
  try {
    result.endpointChanges = historyEndpointDiff(baseFiles, headFiles).changes;
  } catch (e) {
    result.error = `cannot diff the import history: ${e instanceof Error ? e.message : String(e)}`;
  }
  attributeToImport(toolChanges, result.endpointChanges);
  const enabled = new Map([...enabledEndpoints(baseFiles, views), ...enabledEndpoints(headFiles, views)]);
  Object.assign(result, countFolder(toolChanges, result.endpointChanges, new Set(enabled.keys())));
  if (headFiles['config.yaml'] === undefined) result.removed = true;
  return { result, enabled };
}
