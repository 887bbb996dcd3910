/**
 * Merge bases for a folder written before .svc/generated.json existed: the tools the generator
 * makes of the previous import's stored endpoints, matched to the folder's tool files by
 * endpoint. Exact while the generator is the same version; otherwise a field the generator now
 * writes differently counts as the user's until it changes upstream.
 */
import type { ToolItem } from '../../folder/model.js';
import type { SvcTool } from '../../schemas/types.js';
import { endpointMatchKey } from '../diff/endpoint-key.js';

export function derivedBases(
  previous: readonly ToolItem[],
  generatedBefore: readonly { key: string; tool: SvcTool }[],
): Map<string, SvcTool> {
  const byEndpoint = new Map<string, SvcTool>();
  for (const { tool } of generatedBefore) {
    const k = endpointMatchKey(tool.endpoint.method, tool.endpoint.path);
    if (!byEndpoint.has(k)) byEndpoint.set(k, tool);
  }
  const out = new Map<string, SvcTool>();
  for (const item of previous) {
    if (item.tool.origin !== 'imported') continue;
    const base = byEndpoint.get(endpointMatchKey(item.tool.endpoint.method, item.tool.endpoint.path));
    // The name and description the generator gave this file are on record, even when the
    // generator has changed since (a description it now writes whole still counts as unedited).
    const g = item.tool.generated;
    if (base) out.set(item.key, g ? { ...base, name: g.name, description: g.description } : base);
  }
  return out;
}
