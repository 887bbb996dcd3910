/**
 * Tools as the first svc releases wrote them, for folders that predate stored merge bases: the
 * same tools today's generator builds in compact form (a tool description capped, a property's
 * cut to its first sentence, HTML kept as written), without `contentEncoding` on binary fields,
 * and with the old output schema: the response object's top-level property names, each typed
 * and nullable, nothing nested. Only a merge candidate (derived-bases.ts): never written.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { isJsonMediaType } from '../endpoints/index.js';
import { type BuiltTool, buildTools } from '../tools/build-tools.js';
import { type Defs, resolveLocal, type Schema } from '../tools/compact-schema.js';

function nullableType(node: Record<string, unknown>): Record<string, unknown> {
  const types = Array.isArray(node.type) ? node.type : typeof node.type === 'string' ? [node.type] : [];
  return types.length > 0 ? { type: types.includes('null') ? [...types] : [...types, 'null'] } : {};
}

function firstReleaseOutput(endpoint: Endpoint): SvcTool['outputSchema'] | undefined {
  const response = endpoint.response;
  if (!response || response.schema === undefined) return undefined;
  if (response.contentType !== undefined && !isJsonMediaType(response.contentType)) return undefined;
  const defs = endpoint.defs as Defs | undefined;
  const schema = resolveLocal(response.schema as Schema, defs);
  if (!isPlainObject(schema)) return undefined;
  const objectType =
    schema.type === 'object' || (schema.type === undefined && isPlainObject(schema.properties));
  if (!objectType || schema.oneOf || schema.anyOf || schema.allOf) return undefined;
  const out: Record<string, unknown> = nullableType(schema);
  if (isPlainObject(schema.properties)) {
    const properties: Record<string, unknown> = {};
    for (const [name, property] of Object.entries(schema.properties)) {
      const node = resolveLocal(property as Schema, defs);
      properties[name] = isPlainObject(node) ? nullableType(node) : {};
    }
    out.properties = properties;
  }
  return { ...out, type: 'object' } as SvcTool['outputSchema'];
}

function withoutContentEncoding(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutContentEncoding);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'contentEncoding' && value.format === 'binary') continue;
    out[k] = withoutContentEncoding(v);
  }
  return out;
}

export function firstReleaseTools(endpoints: Endpoint[]): BuiltTool[] {
  return buildTools(endpoints, { compact: true }).map(({ key, tool }, i) => {
    const output = firstReleaseOutput(endpoints[i]!);
    const old: SvcTool = {
      ...tool,
      inputSchema: withoutContentEncoding(tool.inputSchema) as SvcTool['inputSchema'],
    };
    if (output) old.outputSchema = output;
    else delete old.outputSchema;
    return { key, tool: old };
  });
}
