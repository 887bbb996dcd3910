/**
 * Which way a folder's enabled tools reach a client (contracts/discovery.md): listed one by
 * one (`all`), or behind two meta-tools that search and call them (`search`). `auto`, the
 * default, picks search once the list would cost a model's context more than it helps.
 * Pure: the runtime, `svc validate` and the diff report all ask this one function.
 */

export type DiscoverySetting = 'all' | 'search' | 'auto';
export type DiscoveryMode = 'all' | 'search';

/** `auto` turns to search past either limit (contracts/discovery.md). */
export const AUTO_MAX_TOOLS = 40;
export const AUTO_MAX_BYTES = 32 * 1024;

export const SEARCH_TOOLS = 'search_tools';
export const CALL_TOOL = 'call_tool';
export const META_TOOL_NAMES: ReadonlySet<string> = new Set([SEARCH_TOOLS, CALL_TOOL]);

export const SEARCH_LIMIT_DEFAULT = 8;
export const SEARCH_LIMIT_MAX = 50;

/** The two meta-tools as tools/list shows them. */
export const META_TOOLS = [
  {
    name: SEARCH_TOOLS,
    title: 'Search tools',
    description:
      'Search this server\'s tools by what you want to do, in plain words (for example "merge a pull request"). Returns the best matches with their input schemas; call one with call_tool.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        query: { type: 'string', minLength: 1, maxLength: 500, description: 'What you want to do.' },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: SEARCH_LIMIT_MAX,
          default: SEARCH_LIMIT_DEFAULT,
          description: 'How many tools to return.',
        },
      },
      required: ['query'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
  },
  {
    name: CALL_TOOL,
    title: 'Call a tool',
    description:
      'Call a tool found with search_tools, by its name, with arguments that match its input schema. A tool that changes data runs only after the person confirms it.',
    inputSchema: {
      type: 'object' as const,
      properties: {
        name: {
          type: 'string',
          minLength: 1,
          maxLength: 128,
          description: 'The tool name from search_tools.',
        },
        arguments: { type: 'object', description: "The tool's arguments." },
      },
      required: ['name'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: false, destructiveHint: true, openWorldHint: true },
  },
];

export interface ModeDecision {
  setting: DiscoverySetting;
  mode: DiscoveryMode;
  /** Why `auto` chose what it chose (undefined for an explicit setting). */
  reason?: string;
}

/**
 * `listBytes`: the UTF-8 size of `{"tools":[…]}` with every served tool listed, or a function that
 * measures it, called only when the decision depends on it (auto with few enough tools).
 */
export function decideMode(
  setting: DiscoverySetting | undefined,
  servedTools: number,
  listBytesOrMeasure: number | (() => number),
): ModeDecision {
  const s = setting ?? 'auto';
  if (s !== 'auto') return { setting: s, mode: s };
  if (servedTools > AUTO_MAX_TOOLS)
    return {
      setting: s,
      mode: 'search',
      reason: `${servedTools} enabled tools (more than ${AUTO_MAX_TOOLS})`,
    };
  const listBytes = typeof listBytesOrMeasure === 'number' ? listBytesOrMeasure : listBytesOrMeasure();
  if (listBytes > AUTO_MAX_BYTES)
    return {
      setting: s,
      mode: 'search',
      reason: `tools/list would be ${formatBytes(listBytes)} (more than ${formatBytes(AUTO_MAX_BYTES)})`,
    };
  return {
    setting: s,
    mode: 'all',
    reason: `${servedTools} enabled tools, ${formatBytes(listBytes)} of tools/list`,
  };
}

export function formatBytes(n: number): string {
  return n < 1024
    ? `${n} B`
    : n < 1024 * 1024
      ? `${(n / 1024).toFixed(1)} KB`
      : `${(n / 1048576).toFixed(2)} MB`;
}

/** The size a client receives for a tools/list result holding these tools. */
export function listBytes(tools: readonly unknown[]): number {
  return Buffer.byteLength(JSON.stringify({ tools }));
}
