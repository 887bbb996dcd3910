/** Which tools the runtime serves; its own module so a listing does not load the schema checker. */
import type { ToolItem } from './model.js';

/** Whether the runtime serves a tool: enabled, and not stale (a stale tool calls an endpoint that is gone). */
export function isServed(item: ToolItem): boolean {
  return item.tool.enabled === true && item.tool.stale !== true;
}
