/**
 * The SvcEngine of a real run: the committed diff from the .svc/ history and a re-import through the
 * generator's one import orchestrator (the same code as `svc import` / `svc diff`).
 */
import { importFolder } from '../../generator/import/index.js';
import { ENABLED_TOOL_HITS, renderReportMarkdown } from '../../generator/report/index.js';
import type { ReimportView, SvcEngine } from './engine.js';
import { historyEndpointDiff } from './history-diff.js';

export const svcEngine: SvcEngine = {
  endpointDiff: historyEndpointDiff,
  async reimport({ dir, dryRun, git }): Promise<ReimportView> {
    const result = await importFolder({ dir, dryRun, ...(git ? { git } : {}) });
    const warnings = result.report.warnings;
    // The warnings `svc diff --fail-on breaking` fails on: the counts here are svc diff's.
    const hits = warnings.filter((w) => ENABLED_TOOL_HITS.has(w.id));
    const breakingEnabled = hits.length;
    return {
      status: result.status,
      changed: result.changed,
      summary: result.report.summary,
      markdown: renderReportMarkdown(result.report),
      breakingEnabled,
      warnings: warnings.length - breakingEnabled,
      hits: hits.map((w) => w.text),
      ...(result.error ? { error: result.error.describe() } : {}),
    };
  },
};
