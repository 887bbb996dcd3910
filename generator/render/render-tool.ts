import toolSchema from '../../schemas/tool.schema.json' with { type: 'json' };
import type { SvcTool } from '../../schemas/types.js';
import { orderKeys, type SchemaNode } from './key-order.js';
import { schemaLine, yamlText } from './yaml-text.js';

const root = toolSchema as unknown as SchemaNode;

/**
 * What a reviewer reads first comes first: identity and policy (name, description, enabled),
 * then what it calls, then the long schemas, then the generator's record.
 */
export const TOOL_KEY_ORDER = [
  'name',
  'title',
  'description',
  'enabled',
  'sortOrder',
  'origin',
  'stale',
  'endpoint',
  'classification',
  'annotations',
  'widget',
  'locations',
  'body',
  'inputSchema',
  'outputSchema',
  'generated',
] as const;

/** Tools/<key>.yaml */
export function renderTool(tool: SvcTool): string {
  return renderOrderedTool(orderedTool(tool));
}

/** The value a tool file holds: the tool with its keys in the written order. */
export function orderedTool(tool: SvcTool): unknown {
  return orderKeys(tool, root, root, TOOL_KEY_ORDER);
}

/** Tools/<key>.yaml from orderedTool's value. */
export function renderOrderedTool(ordered: unknown): string {
  return schemaLine('tool') + yamlText(ordered);
}
