/**
 * A tool as tools/list shows it to clients: built here, from the tool file alone, so that the
 * runtime that serves it and the reports that weigh it (`svc validate`, the PR comment) agree
 * byte for byte on what a client receives.
 */
import type { SvcTool } from '../schemas/types.js';
import { advertisedOutputSchema } from './advertised-output-schema.js';

export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown> & { type: 'object' };
  outputSchema?: Record<string, unknown> & { type: 'object' };
  annotations: Record<string, unknown>;
  _meta?: Record<string, unknown>;
}

/** The `ui://` resource URI of a widget, as the runtime serves it. */
export function widgetUri(serverId: string, name: string): string {
  return `ui://${serverId}/${name}.html`;
}

/**
 * `widgetUri`: the `ui://` resource of the tool's widget, when that widget is enabled;
 * `outputSchemas: false` (config.yaml) leaves the output schema out.
 */
export function listedTool(
  t: SvcTool,
  widgetUri?: string,
  opts: { outputSchemas?: boolean } = {},
): ListedTool {
  const listed: ListedTool = {
    name: t.name,
    description: t.description || t.title || t.name,
    inputSchema: t.inputSchema as ListedTool['inputSchema'],
    annotations: { ...t.annotations },
  };
  if (t.title) listed.title = t.title;
  if (t.outputSchema && opts.outputSchemas !== false)
    listed.outputSchema = advertisedOutputSchema(t.outputSchema);
  if (widgetUri)
    listed._meta = {
      ui: { resourceUri: widgetUri },
      'ui/resourceUri': widgetUri,
      'openai/outputTemplate': widgetUri,
    };
  return listed;
}
