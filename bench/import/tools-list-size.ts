import type { SvcTool } from '../../schemas/types.js';

/** Bytes of the tools/list result a host would receive with every one of these tools enabled. */
export function toolsListBytes(tools: readonly SvcTool[]): number {
  const list = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
  }));
  return Buffer.byteLength(JSON.stringify({ tools: list }));
}

/**
 * The peer generator writes its tools into src/index.ts as a Map literal; its tools/list
 * handler sends {name, description, inputSchema} of each. We read those three back out.
 */
export function peerToolsListBytes(indexTs: string): number | undefined {
  const entry =
    /\n {2}\["[^"\n]*", \{\n {4}name: "((?:[^"\\\n]|\\.)*)",\n {4}description: `([\s\S]*?)`,\n {4}inputSchema: (.*),\n/g;
  const tools: Array<{ name: string; description: string; inputSchema: unknown }> = [];
  for (const match of indexTs.matchAll(entry)) {
    try {
      tools.push({
        name: JSON.parse(`"${match[1]}"`) as string,
        description: match[2]!.replace(/\\([`$\\])/g, '$1'),
        inputSchema: JSON.parse(match[3]!),
      });
    } catch {
      return undefined;
    }
  }
  if (tools.length === 0) return undefined;
  return Buffer.byteLength(JSON.stringify({ tools }));
}
