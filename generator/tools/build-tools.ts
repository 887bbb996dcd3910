import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { buildTool } from './build-tool.js';
import type { MarkdownConverter } from './html-to-markdown.js';
import { MAX_TOOL_NAME_LENGTH, uniqueToolNames } from './tool-naming.js';

export interface BuiltTool {
  /** File stem of Tools/<key>.yaml: the name at generation time, stable after renames. */
  key: string;
  tool: SvcTool;
}

export interface BuildToolsOptions {
  maxToolNameLength?: number;
  /** Every tool with short descriptions (config.yaml `compact: true`, `svc init --compact`). */
  compact?: boolean;
  /** Tools that asked for short descriptions themselves (`compact: true` in their file). */
  compactFor?: (endpoint: Endpoint) => boolean;
  /** HTML descriptions → Markdown (loadHtmlToMarkdown); without it text is kept as written. */
  markdown?: MarkdownConverter;
  /** Told of what a tool had to leave out (see BuildToolOptions.onWarning). */
  onWarning?: (text: string) => void;
}

/** Every endpoint becomes a disabled tool with a unique, valid name; sortOrder = position. */
export function buildTools(endpoints: Endpoint[], opts: BuildToolsOptions = {}): BuiltTool[] {
  const names = uniqueToolNames(endpoints, opts.maxToolNameLength ?? MAX_TOOL_NAME_LENGTH);
  return endpoints.map((endpoint, index) => {
    const name = names[index]!;
    const perTool = opts.compactFor?.(endpoint) === true;
    const tool = buildTool(endpoint, name, {
      ...(opts.compact || perTool ? { compact: true } : {}),
      ...(opts.markdown ? { markdown: opts.markdown } : {}),
      ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
    });
    // The folder-wide setting lives in config.yaml; only a tool's own choice is written on it.
    if (perTool) tool.compact = true;
    tool.sortOrder = index;
    return { key: name, tool };
  });
}
