/**
 * Tools as the first svc releases wrote them, for folders that predate stored merge bases: the
 * same tools today's generator builds in compact form (a tool description capped, a property's
 * cut to its first sentence, HTML kept as written), without `contentEncoding` on binary fields
 * or the required names later releases declare,
 * an optional body's properties beside the parameters (none of them required), and the old
 * output schema: the response object's top-level property names, each typed and nullable,
 * nothing nested. Only a merge candidate (derived-bases.ts): never written.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint, SvcTool } from '../../schemas/types.js';
import { mediaRangeAdmitsJson } from '../endpoints/index.js';
import { type BuiltTool, buildTools } from '../tools/build-tools.js';
import { type Defs, resolveLocal, type Schema } from '../tools/compact-schema.js';
import { UNDESCRIBED } from '../tools/declare-required.js';

function nullableType(node: Record<string, unknown>): Record<string, unknown> {
  const types = Array.isArray(node.type) ? node.type : typeof node.type === 'string' ? [node.type] : [];
  return types.length > 0 ? { type: types.includes('null') ? [...types] : [...types, 'null'] } : {};
}

function firstReleaseOutput(endpoint: Endpoint): SvcTool['outputSchema'] | undefined {
  const response = endpoint.response;
  if (!response || response.schema === undefined) return undefined;
  if (response.contentType !== undefined && !mediaRangeAdmitsJson(response.contentType)) return undefined;
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

/** What later releases add to an input schema: `contentEncoding` on binary fields, declared required names. */
function withoutLaterAdditions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutLaterAdditions);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'contentEncoding' && value.format === 'binary') continue;
    if (k === 'properties' && isPlainObject(v)) {
      const kept = Object.entries(v).filter(
        ([, p]) => !(isPlainObject(p) && Object.keys(p).length === 1 && p.description === UNDESCRIBED),
      );
      if (kept.length === 0 && Object.keys(v).length > 0) continue;
      out[k] = withoutLaterAdditions(Object.fromEntries(kept));
      continue;
    }
    out[k] = withoutLaterAdditions(v);
  }
  return out;
}

/** The tool of an optional body as the first release built it: flattened when it could be, nothing in it required. */
function optionalBodyTool(endpoint: Endpoint, name: string): SvcTool | undefined {
  const body = endpoint.requestBody;
  if (!body || body.required) return undefined;
  const [built] = buildTools([{ ...endpoint, requestBody: { ...body, required: true } }], { compact: true });
  const tool = built!.tool;
  if (tool.body) tool.body = { ...tool.body, required: false };
  const inBody = new Set(Object.keys(tool.locations).filter((k) => tool.locations[k]?.in === 'body'));
  const input = tool.inputSchema as { required?: string[] };
  const required = (input.required ?? []).filter((k) => !inBody.has(k));
  if (required.length > 0) input.required = required;
  else delete input.required;
  return { ...tool, name };
}

export function firstReleaseTools(endpoints: Endpoint[]): BuiltTool[] {
  return buildTools(endpoints, { compact: true }).map(({ key, tool }, i) => {
    const endpoint = endpoints[i]!;
    const flat = optionalBodyTool(endpoint, tool.name);
    const output = firstReleaseOutput(endpoint);
    const old: SvcTool = {
      ...(flat ?? tool),
      inputSchema: withoutLaterAdditions((flat ?? tool).inputSchema) as SvcTool['inputSchema'],
      sortOrder: tool.sortOrder,
    };
    // The record stays that of the endpoint itself (derived-bases.ts compares fingerprints).
    if (tool.generated) old.generated = tool.generated;
    if (output) old.outputSchema = output;
    else delete old.outputSchema;
    return { key, tool: old };
  });
}
