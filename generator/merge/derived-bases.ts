/**
 * For a folder written before .svc/generated.json: what known generators make of the previous
 * import's stored endpoints (each generation a list of built tools), matched to the folder's
 * tool files by endpoint. These are the candidates from which mergeTool reconstructs a merge
 * base field by field (unrecorded-base.ts); none of them is taken as the base whole, because
 * the generator that wrote the folder is not on record.
 */
import type { ToolItem } from '../../folder/model.js';
import type { SvcTool } from '../../schemas/types.js';
import { endpointMatchKey } from '../diff/endpoint-key.js';

export function derivedBases(
  previous: readonly ToolItem[],
  generations: readonly (readonly { key: string; tool: SvcTool }[])[],
  /**
   * The generations were built from today's endpoints (the folder has no stored endpoints):
   * a candidate counts only for a file made from the same endpoint definition (fingerprint).
   */
  sameFingerprintOnly = false,
): Map<string, SvcTool[]> {
  const indexes = generations.map((tools) => {
    const byEndpoint = new Map<string, SvcTool>();
    for (const { tool } of tools) {
      const k = endpointMatchKey(tool.endpoint.method, tool.endpoint.path);
      if (!byEndpoint.has(k)) byEndpoint.set(k, tool);
    }
    return byEndpoint;
  });
  const out = new Map<string, SvcTool[]>();
  for (const item of previous) {
    if (item.tool.origin !== 'imported') continue;
    const k = endpointMatchKey(item.tool.endpoint.method, item.tool.endpoint.path);
    const recorded = item.tool.generated?.fingerprint;
    const found = indexes
      .map((byEndpoint) => byEndpoint.get(k))
      .filter((t) => t !== undefined)
      .filter(
        (t) => !sameFingerprintOnly || (recorded !== undefined && t.generated?.fingerprint === recorded),
      );
    if (found.length > 0) out.set(item.key, found);
  }
  return out;
}
