/**
 * The served tools of a folder and how they reach clients (contracts/discovery.md): what the
 * runtime's compileConfig serves, and all `svc validate` needs to print the size of tools/list,
 * without the MCP SDK the rest of a served config loads.
 */
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { compileToolSchema } from '../folder/check-tools.js';
import { isServed } from '../folder/served.js';
import { decideMode, listBytes, type ModeDecision } from '../folder/discovery-mode.js';
import { type ListedTool, listedTool, widgetUri } from '../folder/listed-tool.js';
import type { FolderModel, ToolItem } from '../folder/model.js';
import { searchModeList } from '../folder/tools-list-cost.js';
import { buildToolIndex, type ToolIndex } from './discovery/tool-index.js';

export interface CompiledTool {
  item: ToolItem;
  listed: ListedTool;
  /** Ajv validator of the input schema, compiled on first use and kept for this version. */
  validator(): ValidateFunction | { error: string };
  /** Ajv validator of the output schema (undefined without one), compiled once, on first use. */
  outputValidator(): ValidateFunction | { error: string } | undefined;
}

/** How the served tools reach clients (contracts/discovery.md). */
export interface Discovery extends ModeDecision {
  /** Every served tool (enabled, not stale): what search finds and call_tool reaches. */
  catalog: ReadonlyMap<string, CompiledTool>;
  /** Search mode only: the full-text index over the catalog, built on first use, once per version. */
  index?: ToolIndex;
  /** Bytes of tools/list with every served tool listed, and as actually listed. */
  allBytes: number;
  listedBytes: number;
}

export type SchemaCompiler = (
  schema: object,
  file: string,
  which: 'input' | 'output',
) => ValidateFunction | { error: string };

export function schemaValidator(
  schema: object,
  file: string,
  which: 'input' | 'output',
): ValidateFunction | { error: string } {
  const compiled = compileToolSchema(schema);
  return 'error' in compiled
    ? { error: `the ${which} schema of ${file} cannot be compiled: ${compiled.error}` }
    : compiled;
}

export interface CatalogOptions {
  compileSchema?: SchemaCompiler;
  /** Build search mode's index (default true); `svc validate` only reports the mode and sizes. */
  searchIndex?: boolean;
}

/** The served tools (enabled, not stale), listed and compiled on first call, and the discovery mode. */
export function compileToolCatalog(
  folder: FolderModel,
  { compileSchema = schemaValidator, searchIndex = true }: CatalogOptions = {},
): { discovery: Discovery; tools: ReadonlyMap<string, CompiledTool>; toolList: readonly ListedTool[] } {
  const { config } = folder;
  const serverId = config.server.id;
  const enabledWidgets = new Set<string>();
  for (const w of folder.widgets) if (w.sidecar.enabled === true) enabledWidgets.add(w.name);

  const catalog = new Map<string, CompiledTool>();
  for (const item of folder.tools) {
    const t = item.tool;
    if (!isServed(item) || catalog.has(t.name)) continue;
    // config.yaml `outputSchemas: false` leaves them out of tools/list (and so out of validation).
    const outputSchema = config.outputSchemas === false ? undefined : t.outputSchema;
    // Listed on first use: in search mode tools/list holds only the pinned tools, and listing
    // (the advertised output schema above all) GitHub's 1,108 cost ~25 ms of every boot.
    let listed: ListedTool | undefined;
    let compiled: ValidateFunction | { error: string } | undefined;
    let compiledOutput: ValidateFunction | { error: string } | undefined;
    catalog.set(t.name, {
      item,
      get listed() {
        listed ??= listedTool(
          t,
          t.widget && enabledWidgets.has(t.widget) ? widgetUri(serverId, t.widget) : undefined,
          { outputSchemas: config.outputSchemas !== false },
        );
        return listed;
      },
      validator() {
        compiled ??= compileSchema(t.inputSchema, item.file, 'input');
        return compiled;
      },
      outputValidator() {
        if (!outputSchema) return undefined;
        compiledOutput ??= compileSchema(outputSchema, item.file, 'output');
        return compiledOutput;
      },
    });
  }
  return discoveryOf(config.discovery, catalog, searchIndex);
}

/**
 * In search mode the list holds the meta-tools and the pinned tools, and only those are
 * callable by name: every other tool is reached through call_tool, which asks the person
 * before a write. A pinned tool named like a meta-tool stays reachable through call_tool.
 */
function discoveryOf(
  setting: FolderModel['config']['discovery'],
  catalog: ReadonlyMap<string, CompiledTool>,
  searchIndex: boolean,
): { discovery: Discovery; tools: ReadonlyMap<string, CompiledTool>; toolList: readonly ListedTool[] } {
  let listedAll: ListedTool[] | undefined;
  const catalogList = () => {
    listedAll ??= [...catalog.values()].map((c) => c.listed);
    return listedAll;
  };
  // Measuring every tool's listing (~20 ms for GitHub's 1,108) only when asked: the runtime never
  // asks for a folder whose tool count decides its mode (svc validate prints the sizes).
  let measured: number | undefined;
  const allBytes = () => {
    measured ??= listBytes(catalogList());
    return measured;
  };
  const decision = decideMode(setting, catalog.size, allBytes);
  if (decision.mode === 'all') {
    return {
      discovery: {
        ...decision,
        catalog,
        get allBytes() {
          return allBytes();
        },
        get listedBytes() {
          return allBytes();
        },
      },
      tools: catalog,
      toolList: catalogList(),
    };
  }
  // Only the pinned tools are listed here (in catalog order, as searchModeList keeps it).
  const pinned = [...catalog.values()].filter((c) => c.item.tool.pinned === true).map((c) => c.listed);
  const toolList = searchModeList(pinned, (name) => catalog.get(name)?.item.tool.pinned === true);
  const tools = new Map<string, CompiledTool>();
  for (const listed of toolList) {
    const compiled = catalog.get(listed.name);
    if (compiled) tools.set(listed.name, compiled);
  }
  // Built on the first search, not at boot: tools/list in search mode lists only the meta-tools
  // and the pinned tools, and indexing GitHub's 1,108 tools cost ~60 ms of every start.
  let index: ToolIndex | undefined;
  const buildIndex = () => {
    index ??= buildToolIndex(
      catalogList().map((listed) => {
        const t = catalog.get(listed.name)!.item.tool;
        return {
          name: listed.name,
          ...(listed.title ? { title: listed.title } : {}),
          description: listed.description,
          method: t.endpoint.method,
          path: t.endpoint.path,
          classification: t.classification,
          parameters: Object.keys(t.locations),
        };
      }),
    );
    return index;
  };
  const discovery: Discovery = {
    ...decision,
    catalog,
    get allBytes() {
      return allBytes();
    },
    listedBytes: listBytes(toolList),
  };
  if (searchIndex) Object.defineProperty(discovery, 'index', { get: buildIndex, enumerable: true });
  return {
    discovery,
    tools,
    toolList,
  };
}
