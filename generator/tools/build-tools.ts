import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { buildTool } from './build-tool.js';
import { MAX_TOOL_NAME_LENGTH, uniqueToolNames } from './tool-naming.js';

export interface BuiltTool {
  /** File stem of Tools/<key>.yaml: the name at generation time, stable after renames. */
  key: string;
  tool: SvcTool;
}

/** Every endpoint becomes a disabled tool with a unique, valid name; sortOrder = position. */
export function buildTools(endpoints: Endpoint[], opts: { maxToolNameLength?: number } = {}): BuiltTool[] {
  const names = uniqueToolNames(endpoints, opts.maxToolNameLength ?? MAX_TOOL_NAME_LENGTH);
  return endpoints.map((endpoint, index) => {
    const name = names[index]!;
    const tool = buildTool(endpoint, name);
    tool.sortOrder = index;
    return { key: name, tool };
  });
}
