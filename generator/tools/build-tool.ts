/**
 * One endpoint → one tool file: a root `type: object` input schema combining path, query,
 * header and cookie parameters with the request body, the record of where each property goes,
 * annotations from the method, a lenient output schema for JSON object responses, and what the
 * generator produced (name, description, fingerprint) for re-imports.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import { declareRequiredNames } from './declare-required.js';
import type { Endpoint, Location, SvcTool } from '../../schemas/types.js';
import { endpointFingerprint, mediaRangeAdmitsJson } from '../endpoints/index.js';
import { collectDefRefs } from '../endpoints/schema-convert.js';
import { annotationsFor } from './annotations.js';
import { buildOutputSchema } from './output-schema.js';
import { classify } from './classify.js';
import {
  type Defs,
  INPUT_DEFS_LIMIT,
  mapSchema,
  resolveLocal,
  type Schema,
  selectDefs,
  stubMissingRefs,
  styleSchema,
} from './compact-schema.js';
import {
  capText,
  MAX_PROPERTY_DESCRIPTION,
  propertyDescription,
  type TextForm,
  toolDescription,
} from './describe.js';
import { keepText, type MarkdownConverter } from './html-to-markdown.js';

type BodyEncoding = NonNullable<SvcTool['body']>['contentType'];
const LOCATION_ORDER = ['path', 'query', 'header', 'cookie'] as const;

export interface BuildToolOptions {
  /** Short descriptions (first sentence, capped) instead of whole ones. */
  compact?: boolean;
  /** HTML descriptions → Markdown (loadHtmlToMarkdown); without it text is kept as written. */
  markdown?: MarkdownConverter;
  /** Told when the tool's input schema had to leave something out (INPUT_DEFS_LIMIT). */
  onWarning?: (text: string) => void;
}

export function buildTool(endpoint: Endpoint, name: string, opts: BuildToolOptions = {}): SvcTool {
  const form: TextForm = { style: opts.compact ? 'compact' : 'full', markdown: opts.markdown ?? keepText };
  const description = toolDescription(endpoint, form);
  const { inputSchema, locations, body, trimmed } = buildInput(endpoint, form);
  if (trimmed > 0)
    opts.onWarning?.(
      `tool ${name} (${endpoint.method} ${endpoint.path}): its input schema reaches more than ${INPUT_DEFS_LIMIT / 1024} KB of shared definitions; ${trimmed} of them are left open (type only), so arguments there are not checked`,
    );
  const title = toolTitle(endpoint.summary, form);
  const tool: SvcTool = {
    name,
    ...(title ? { title } : {}),
    description,
    enabled: false,
    sortOrder: 0,
    origin: 'imported',
    endpoint: {
      method: endpoint.method,
      path: endpoint.path,
      ...(endpoint.operationId ? { operationId: endpoint.operationId } : {}),
      ...(endpoint.deprecated ? { deprecated: true } : {}),
      ...(endpoint.scopes ? { scopes: [...endpoint.scopes] } : {}),
    },
    classification: classify(endpoint.method, endpoint.path),
    inputSchema: unshared(inputSchema),
    locations,
    annotations: annotationsFor(endpoint.method),
  };
  declareRequiredNames(tool.inputSchema as Record<string, unknown>);
  if (body) tool.body = body;
  const outputSchema = buildOutputSchema(endpoint);
  if (outputSchema) tool.outputSchema = unshared(outputSchema);
  // The generated description is recorded once, in .svc/generated.json, not again in the file.
  tool.generated = { name, fingerprint: endpointFingerprint(endpoint) };
  return tool;
}

/** Characters of a tool title (the tool file schema's limit). */
const MAX_TITLE = 200;

/**
 * The MCP tool `title` (what hosts show people) from the operation summary: one line of text,
 * HTML turned into Markdown, capped. No summary, no title (hosts fall back to the name).
 */
function toolTitle(summary: string | undefined, form: TextForm): string | undefined {
  const text = form
    .markdown(summary?.trim() ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return text ? capText(text, MAX_TITLE) : undefined;
}

/**
 * Schemas are assembled from shared, cached parts; a tool handed to a writer owns its own
 * copy, so no YAML anchors appear and no edit of one tool can reach another.
 */
function unshared<T>(value: T): T {
  return copyJson(value) as T;
}

function copyJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(copyJson);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[key];
    if (v !== undefined) out[key] = copyJson(v);
  }
  return out;
}

interface BuiltInput {
  inputSchema: SvcTool['inputSchema'];
  locations: SvcTool['locations'];
  body?: SvcTool['body'];
  /** How many reachable $defs were left out (beyond INPUT_DEFS_LIMIT). */
  trimmed: number;
}

function buildInput(endpoint: Endpoint, form: TextForm): BuiltInput {
  const defs = endpoint.defs as Defs | undefined;
  const params = [...endpoint.parameters].sort(
    (a, b) => LOCATION_ORDER.indexOf(a.in) - LOCATION_ORDER.indexOf(b.in),
  );
  const bodyProps = flattenableBody(endpoint, defs);
  // A name used twice (parameter vs parameter, or parameter vs body property) is suffixed on
  // the parameter side with its location, FastMCP style: nothing is lost.
  const counts = new Map<string, number>();
  for (const p of params) counts.set(p.name, (counts.get(p.name) ?? 0) + 1);
  for (const key of bodyProps?.names ?? []) counts.set(key, (counts.get(key) ?? 0) + 1);

  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  const locations: Record<string, Location> = {};
  for (const p of params) {
    let key = (counts.get(p.name) ?? 0) > 1 ? `${p.name}__${p.in}` : p.name;
    while (Object.hasOwn(properties, key)) key = `${key}_`;
    properties[key] = withDescription(styleSchema(p.schema as Schema, form), p.description, form);
    if (p.required) required.push(key);
    const location: Location = { in: p.in, name: p.name };
    if (p.style) location.style = p.style;
    if (p.explode !== undefined) location.explode = p.explode;
    locations[key] = location;
  }

  let body: SvcTool['body'] | undefined;
  const requestBody = endpoint.requestBody;
  if (requestBody) {
    body = { contentType: bodyEncoding(requestBody.contentType), required: requestBody.required };
    if (
      requestBody.encoding &&
      (body.contentType === 'application/x-www-form-urlencoded' || body.contentType === 'multipart/form-data')
    )
      body.encoding = requestBody.encoding;
    if (bodyProps) {
      for (const key of bodyProps.names) {
        const schema = styleSchema(bodyProps.properties[key] as Schema, form);
        properties[key] = body.contentType === 'multipart/form-data' ? declareBase64(schema) : schema;
        locations[key] = { in: 'body', name: key };
        if (requestBody.required && bodyProps.required.includes(key)) required.push(key);
      }
    } else {
      let key = 'body';
      while (Object.hasOwn(properties, key)) key = `${key}_`;
      // A plain object body sent whole shows its own properties and `required` at once, not
      // behind a $ref that the defs budget might turn into an open stub.
      const plain = bodyProperties(endpoint, defs)
        ? resolveLocal(requestBody.schema as Schema, defs)
        : undefined;
      let schema = styleSchema((plain ?? requestBody.schema) as Schema, form);
      if (body.contentType === 'application/octet-stream') schema = declareBase64(schema);
      else if (
        body.contentType === 'multipart/form-data' &&
        isPlainObject(schema) &&
        isPlainObject(schema.properties)
      ) {
        const fields: Record<string, unknown> = {};
        for (const [name, field] of Object.entries(schema.properties))
          fields[name] = declareBase64(field as Schema);
        schema = { ...schema, properties: fields };
      }
      properties[key] = withDescription(schema, requestBody.description, form);
      locations[key] = { in: 'body', name: 'body', whole: true };
      if (requestBody.required) required.push(key);
    }
  }

  const roots = Object.values(properties);
  let kept = selectDefs(roots, defs, INPUT_DEFS_LIMIT, defsForm(form, false));
  if (form.style === 'full' && carriedBytes(kept) > DEFS_WHOLE_TEXT_LIMIT)
    kept = selectDefs(roots, defs, INPUT_DEFS_LIMIT, defsForm(form, true));
  const reachable = reachableDefs(Object.values(properties), defs);
  const finalProperties: Record<string, Schema> = {};
  for (const key of Object.keys(properties))
    finalProperties[key] = stubMissingRefs(properties[key]!, kept, defs, form);
  const inputSchema: Record<string, unknown> = { type: 'object', properties: finalProperties };
  if (required.length > 0) inputSchema.required = required;
  inputSchema.additionalProperties = false;
  if (kept.size > 0) {
    const $defs: Record<string, Schema> = {};
    for (const name of [...kept.keys()].sort())
      $defs[name] = stubMissingRefs(kept.get(name)!, kept, defs, form);
    inputSchema.$defs = $defs;
  }
  const built: BuiltInput = {
    inputSchema: inputSchema as SvcTool['inputSchema'],
    locations,
    trimmed: reachable - kept.size,
  };
  if (body) built.body = body;
  return built;
}

/**
 * Bytes of shared definitions (as carried) above which a tool's definitions keep only the first
 * sentence of each description. Only the largest request bodies reach it (Kubernetes' Pod, whose
 * definitions would otherwise weigh hundreds of KB per tool); every property, type, enum, bound
 * and `required` stays whole either way.
 */
const DEFS_WHOLE_TEXT_LIMIT = 64 * 1024;

/**
 * The form of the shared definitions a tool carries: descriptions as the tool's own (whole by
 * default, a first sentence when `short`), and none in compact tools, where the definitions'
 * structure is what the model needs to build a valid request.
 */
function defsForm(form: TextForm, short: boolean): (def: Schema) => Schema {
  if (form.style === 'compact') return withoutDescriptions;
  const text: TextForm = short ? { style: 'compact', markdown: form.markdown } : form;
  return (def) => styleSchema(def, text);
}

function carriedBytes(kept: ReadonlyMap<string, Schema>): number {
  let bytes = 0;
  for (const [name, def] of kept) bytes += name.length + JSON.stringify(def).length;
  return bytes;
}

const bareCache = new WeakMap<object, Schema>();

function withoutDescriptions(schema: Schema): Schema {
  if (typeof schema === 'boolean') return schema;
  let out = bareCache.get(schema);
  if (out === undefined) {
    out = mapSchema(schema, (node) => {
      if (node.description === undefined) return node;
      const { description: _drop, ...rest } = node;
      return rest;
    });
    bareCache.set(schema, out);
  }
  return out;
}

/** How many of the defs exist that the schemas reach, transitively. */
function reachableDefs(roots: readonly unknown[], defs: Defs | undefined): number {
  if (!defs) return 0;
  const seen = new Set<string>();
  const stack = roots.flatMap((r) => collectDefRefs(r));
  while (stack.length > 0) {
    const name = stack.pop()!;
    if (seen.has(name) || defs[name] === undefined) continue;
    seen.add(name);
    stack.push(...collectDefRefs(defs[name]));
  }
  return seen.size;
}

/**
 * An object body whose properties can sit beside the parameters. Not so for an optional body
 * that requires some of its properties (Twilio's CreateMessage requires `To` yet marks its body
 * optional): flattened, `To` could only be optional, and the rule "when the body is sent, `To`
 * is" would need `dependentRequired` or `if`/`then` at the root, which hosts that pass schemas
 * to models drop or refuse (several accept only plain properties/required at the root). As one
 * optional `body` object its own `required` says it in the one form every MCP client and the
 * runtime's Ajv understand.
 */
function flattenableBody(endpoint: Endpoint, defs: Defs | undefined): FlatBody | undefined {
  const flat = bodyProperties(endpoint, defs);
  if (flat && !endpoint.requestBody?.required && flat.required.length > 0) return undefined;
  return flat;
}

interface FlatBody {
  names: string[];
  properties: Record<string, unknown>;
  required: string[];
}

/**
 * The body's own properties when it is a plain object (directly or through one $ref) whose
 * keys can sit beside the parameters; anything else (arrays, unions, maps, allOf, scalars)
 * travels whole as `body`, so the root always stays `type: object`.
 */
function bodyProperties(endpoint: Endpoint, defs: Defs | undefined): FlatBody | undefined {
  const requestBody = endpoint.requestBody;
  if (!requestBody) return undefined;
  const encoding = bodyEncoding(requestBody.contentType);
  if (encoding === 'text/plain' || encoding === 'application/octet-stream') return undefined;
  const schema = resolveLocal(requestBody.schema as Schema, defs);
  if (!isPlainObject(schema) || !isPlainObject(schema.properties)) return undefined;
  const type = schema.type;
  if (type !== undefined && type !== 'object') return undefined;
  for (const key of ['allOf', 'anyOf', 'oneOf', 'not', 'if', 'patternProperties', 'dependentSchemas']) {
    if (schema[key] !== undefined) return undefined;
  }
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return undefined;
  const names = Object.keys(schema.properties);
  if (names.length === 0) return undefined;
  return {
    names,
    properties: schema.properties,
    required: Array.isArray(schema.required) ? (schema.required as string[]) : [],
  };
}

export function bodyEncoding(contentType: string): BodyEncoding {
  const t = contentType.toLowerCase().split(';')[0]!.trim();
  if (mediaRangeAdmitsJson(t)) return 'application/json';
  if (t === 'application/x-www-form-urlencoded') return 'application/x-www-form-urlencoded';
  if (t.startsWith('multipart/')) return 'multipart/form-data';
  if (t.startsWith('text/')) return 'text/plain';
  return 'application/octet-stream';
}

/**
 * The runtime sends a multipart file field, or an octet-stream body, as the bytes its base64
 * argument decodes to (JSON-RPC carries text only); the schema says so, so that clients and
 * models send base64 and not raw text. An array of files says it of its items.
 */
function declareBase64(schema: Schema): Schema {
  if (!isPlainObject(schema)) return schema;
  if (schema.type === 'array' && isPlainObject(schema.items)) {
    const items = declareBase64(schema.items);
    return items === schema.items ? schema : { ...schema, items };
  }
  if (schema.format !== 'binary' || schema.contentEncoding !== undefined) return schema;
  return { ...schema, contentEncoding: 'base64' };
}

function withDescription(schema: Schema, description: string | undefined, form: TextForm): Schema {
  if (!description) return schema;
  const text = propertyDescription(description, form, MAX_PROPERTY_DESCRIPTION);
  if (typeof schema === 'boolean') return schema ? { description: text } : schema;
  return { ...schema, description: text };
}
