/** The outcome for one server folder in one run, shared by the modes and the renderer. */
import type { ToolsListCost } from '../../folder/tools-list-cost.js';
import type { EndpointChangeView, ReimportView } from './engine.js';
import { type FolderSources, folderSources, serverName } from './folders.js';
import { type LocalRepository, readFileAt } from '../../generator/sources/git/index.js';
import type { ToolChange } from './tool-changes.js';

export interface FolderResult {
  /** Repository-relative folder path. */
  folder: string;
  /** Server name from config.yaml, when readable. */
  name?: string;
  /** The pull request deleted the folder. */
  removed?: boolean;
  toolChanges: ToolChange[];
  endpointChanges: EndpointChangeView[];
  /** What a re-import brings (dry run in a pull request or check, the real import on merge). */
  reimport?: ReimportView;
  /** Breaking changes hitting enabled tools. */
  breaking: number;
  warnings: number;
  error?: string;
  /** What tools/list costs a client before and after, when the change moves it (docs/discovery.md). */
  toolsList?: { before?: ToolsListCost; after: ToolsListCost };
}

/** Committed endpoint changes that hit an enabled tool, plus tool changes classed breaking. */
export function countFolder(
  toolChanges: readonly ToolChange[],
  endpointChanges: readonly EndpointChangeView[],
  enabled: ReadonlySet<string>,
  reimport?: ReimportView,
): { breaking: number; warnings: number } {
  let breaking = toolChanges.filter((c) => c.level === 'breaking').length;
  let warnings = toolChanges.filter((c) => c.level === 'warning').length;
  for (const c of endpointChanges) {
    if (c.breaking && enabled.has(c.endpoint)) breaking++;
  }
  if (reimport) {
    breaking += reimport.breakingEnabled;
    warnings += reimport.warnings;
  }
  return { breaking, warnings };
}

export function hasSomethingToReport(r: FolderResult): boolean {
  return (
    r.removed === true ||
    r.error !== undefined ||
    r.breaking > 0 ||
    r.toolChanges.length > 0 ||
    r.endpointChanges.length > 0 ||
    (r.reimport !== undefined && (r.reimport.changed || r.reimport.status === 'failed'))
  );
}

/** A folder as committed at HEAD: its sources from config.yaml and an empty result to fill in. */
export async function folderAtHead(
  repository: LocalRepository,
  folder: string,
  repo: string,
): Promise<{ sources: FolderSources; result: FolderResult }> {
  const configText = await readFileAt(
    repository,
    'HEAD',
    folder === '.' ? 'config.yaml' : `${folder}/config.yaml`,
  );
  const result: FolderResult = { folder, toolChanges: [], endpointChanges: [], breaking: 0, warnings: 0 };
  const name = serverName(configText);
  if (name) result.name = name;
  return { sources: folderSources(folder, configText, repo), result };
}
