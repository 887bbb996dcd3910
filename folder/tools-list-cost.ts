/**
 * What a folder's tools/list costs a client's context: the discovery mode it gets and the bytes of
 * the list in that mode, beside the bytes with every served tool listed. Pure; the runtime serves
 * exactly this list (runtime/loaded-config.ts), `svc validate` prints it, and the import report and
 * the PR comment show it before and after a change.
 */
import { isServed } from './served.js';
import { decideMode, listBytes, META_TOOL_NAMES, META_TOOLS, type ModeDecision } from './discovery-mode.js';
import { type ListedTool, listedTool, widgetUri } from './listed-tool.js';
import type { FolderModel } from './model.js';

export interface ToolsListCost extends ModeDecision {
  /** Served tools: enabled and not stale. */
  served: number;
  /** Tools listed beside the meta-tools in search mode. */
  pinned: number;
  /** Bytes of tools/list as served in this mode. */
  bytes: number;
  /** Bytes of tools/list with every served tool listed. */
  allBytes: number;
}

/** The served tools of a folder as tools/list shows them, first of each name only. */
export function servedToolList(folder: Pick<FolderModel, 'config' | 'tools' | 'widgets'>): ListedTool[] {
  const widgets = new Set(folder.widgets.filter((w) => w.sidecar.enabled === true).map((w) => w.name));
  const seen = new Set<string>();
  const listed: ListedTool[] = [];
  for (const item of folder.tools) {
    const t = item.tool;
    if (!isServed(item) || seen.has(t.name)) continue;
    seen.add(t.name);
    const uri = t.widget && widgets.has(t.widget) ? widgetUri(folder.config.server.id, t.widget) : undefined;
    listed.push(listedTool(t, uri, { outputSchemas: folder.config.outputSchemas !== false }));
  }
  return listed;
}

/** In search mode: the meta-tools, then the pinned tools (a pinned tool named like a meta-tool is left out). */
export function searchModeList(
  served: readonly ListedTool[],
  isPinned: (name: string) => boolean,
): ListedTool[] {
  return [
    ...(META_TOOLS as unknown as ListedTool[]),
    ...served.filter((t) => isPinned(t.name) && !META_TOOL_NAMES.has(t.name)),
  ];
}

export function toolsListCost(folder: Pick<FolderModel, 'config' | 'tools' | 'widgets'>): ToolsListCost {
  const served = servedToolList(folder);
  const allBytes = listBytes(served);
  const decision = decideMode(folder.config.discovery, served.length, allBytes);
  if (decision.mode === 'all')
    return { ...decision, served: served.length, pinned: 0, bytes: allBytes, allBytes };
  const pinnedNames = new Set(folder.tools.filter((i) => i.tool.pinned === true).map((i) => i.tool.name));
  const list = searchModeList(served, (name) => pinnedNames.has(name));
  return {
    ...decision,
    served: served.length,
    pinned: list.length - META_TOOLS.length,
    bytes: listBytes(list),
    allBytes,
  };
}

/** One line a reviewer reads: "search, 1.2 KB (1,223 tools found by search; 2.3 MB if each were listed)". */
export function describeCost(c: ToolsListCost): string {
  const kb = (n: number) =>
    n < 1024 ? `${n} B` : n < 1048576 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1048576).toFixed(2)} MB`;
  if (c.mode === 'all') return `all, ${kb(c.bytes)} (${c.served} tool${c.served === 1 ? '' : 's'} listed)`;
  return `search, ${kb(c.bytes)} (${c.served} tool${c.served === 1 ? '' : 's'} found by search, ${c.pinned} pinned; ${kb(c.allBytes)} if each were listed)`;
}
