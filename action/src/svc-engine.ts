/**
 * The SvcEngine of a real run: the committed diff from the .svc/ history and a re-import through the
 * generator's one import orchestrator (the same code as `svc import` / `svc diff`).
 */
import { runImport } from '../../generator/import/index.js';
import { renderReportMarkdown } from '../../generator/report/index.js';
import type { ReimportView, SvcEngine } from './engine.js';
import { historyEndpointDiff } from './history-diff.js';

const ENABLED_TOOL_HITS = new Set(['enabled-tool-endpoint-removed', 'enabled-tool-breaking-change']);

export const svcEngine: SvcEngine = {
  endpointDiff: historyEndpointDiff,
  async reimport({ dir, dryRun, git }): Promise<ReimportView> {
    const result = await runImport({ dir, dryRun, ...(git ? { git } : {}) });
    const warnings = result.report.warnings;
    const breakingEnabled = warnings.filter((w) => ENABLED_TOOL_HITS.has(w.id)).length;
    return {
      status: result.status,
      changed: result.changed,
      summary: result.report.summary,
      markdown: renderReportMarkdown(result.report),
      breakingEnabled,
      warnings: warnings.length - breakingEnabled,
      ...(result.error ? { error: result.error.describe() } : {}),
    };
  },
};
