/**
 * The normalized endpoint model: every later stage reads this, never the raw document.
 * Swagger 2.0 and OpenAPI 3.x meet here: parameters merged (operation over path level),
 * $ref'd parameters, bodies and responses followed, body/formData parameters turned into a
 * request body, schemas converted to JSON Schema 2020-12 with shared $defs.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint } from '../../schemas/types.js';
import type { ParsedDocument } from '../parse/index.js';
import { resolvePointer } from '../parse/index.js';
import { endpointContract, inlineSchema } from './endpoint-contract.js';
import { type JsonSchema, SchemaConverter } from './schema-convert.js';

export const METHOD_ORDER = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
type Method = (typeof METHOD_ORDER)[number];
type Parameter = Endpoint['parameters'][number];
type Style = NonNullable<Parameter['style']>;

const STYLES = new Set([
  'form',
  'spaceDelimited',
  'pipeDelimited',
  'deepObject',
  'simple',
  'label',
  'matrix',
]);
const LOCATIONS = new Set(['path', 'query', 'header', 'cookie']);

export function toEndpoints(parsed: ParsedDocument): Endpoint[] {
  const doc = parsed.document;
  const converter = new SchemaConverter(doc, parsed.version);
  const swagger = parsed.version === 'swagger-2.0';
  const paths = isPlainObject(doc.paths) ? doc.paths : {};
  const out: Endpoint[] = [];
  for (const path of Object.keys(paths).sort(compareStrings)) {
    if (!path.startsWith('/')) continue;
    const item = deref(doc, paths[path]);
    if (!isPlainObject(item)) continue;
    for (const method of METHOD_ORDER) {
      const op = item[method.toLowerCase()];
      if (!isPlainObject(op)) continue;
      const endpoint = swagger
        ? swaggerEndpoint(doc, converter, path, method, item, op)
        : openApiEndpoint(doc, converter, path, method, item, op);
      addUndeclaredPathParameters(endpoint);
      const schemas: unknown[] = endpoint.parameters.map((p) => p.schema);
      if (endpoint.requestBody) schemas.push(endpoint.requestBody.schema);
      if (endpoint.response?.schema !== undefined) schemas.push(endpoint.response.schema);
      const names = converter.closure(schemas);
      if (names.length > 0) {
        const defs: Record<string, JsonSchema> = {};
        for (const name of names) defs[name] = converter.defs.get(name) ?? {};
        endpoint.defs = defs;
      }
      const contract = endpointContract(doc, converter, parsed.version, item, op, endpoint);
      if (contract) endpoint.contract = contract;
      out.push(endpoint);
    }
  }
  return out;
}

/**
 * A `{name}` in the path template without a declared parameter (an invalid document that
 * validators let through) still has to be filled in: it becomes a required string.
 */
function addUndeclaredPathParameters(endpoint: Endpoint): void {
  const declared = new Set(endpoint.parameters.filter((p) => p.in === 'path').map((p) => p.name));
  for (const match of endpoint.path.matchAll(/\{([^}]+)\}/g)) {
    const name = match[1]!;
    if (declared.has(name)) continue;
    declared.add(name);
    endpoint.parameters.push({ name, in: 'path', required: true, schema: { type: 'string' } });
  }
}

function baseEndpoint(
  doc: Record<string, unknown>,
  path: string,
  method: Method,
  op: Record<string, unknown>,
): Endpoint {
  const endpoint: Endpoint = {
    method,
    path,
    tags: Array.isArray(op.tags) ? op.tags.filter((t): t is string => typeof t === 'string') : [],
    deprecated: op.deprecated === true,
    parameters: [],
    security: effectiveSecurity(doc, op),
  };
  const scopes = oauthScopes(doc, op);
  if (scopes.length > 0) endpoint.scopes = scopes;
  if (typeof op.operationId === 'string' && op.operationId.trim())
    endpoint.operationId = op.operationId.trim();
  if (typeof op.summary === 'string' && op.summary.trim()) endpoint.summary = op.summary.trim();
  if (typeof op.description === 'string' && op.description.trim())
    endpoint.description = op.description.trim();
  return endpoint;
}

function openApiEndpoint(
  doc: Record<string, unknown>,
  converter: SchemaConverter,
  path: string,
  method: Method,
  item: Record<string, unknown>,
  op: Record<string, unknown>,
): Endpoint {
  const endpoint = baseEndpoint(doc, path, method, op);
  for (const raw of mergeParameters(doc, item.parameters, op.parameters)) {
    const param = openApiParameter(converter, raw);
    if (param) endpoint.parameters.push(param);
  }
  const body = deref(doc, op.requestBody);
  if (isPlainObject(body) && isPlainObject(body.content)) {
    const contentType = pickRequestContentType(Object.keys(body.content));
    if (contentType !== undefined) {
      const media = deref(doc, body.content[contentType]);
      const requestBody: NonNullable<Endpoint['requestBody']> = {
        required: body.required === true,
        contentType,
        schema: withoutFlagged(
          isPlainObject(media) && media.schema !== undefined ? converter.convert(media.schema) : {},
          'readOnly',
          converter,
        ),
      };
      if (typeof body.description === 'string' && body.description.trim())
        requestBody.description = body.description.trim();
      const encoding = isPlainObject(media) ? bodyEncodingOf(contentType, media.encoding) : undefined;
      if (encoding) requestBody.encoding = encoding;
      endpoint.requestBody = requestBody;
    }
  }
  const response = pickResponse(doc, op.responses, (resp) => {
    const content = isPlainObject(resp.content) ? resp.content : {};
    const contentType = Object.keys(content).sort(compareStrings).find(mediaRangeAdmitsJson);
    if (contentType === undefined) {
      const any = Object.keys(content).sort(compareStrings)[0];
      return { contentType: any };
    }
    const media = deref(doc, content[contentType]);
    return { contentType, schema: isPlainObject(media) ? media.schema : undefined };
  });
  if (response) endpoint.response = finishResponse(converter, response);
  return endpoint;
}

function swaggerEndpoint(
  doc: Record<string, unknown>,
  converter: SchemaConverter,
  path: string,
  method: Method,
  item: Record<string, unknown>,
  op: Record<string, unknown>,
): Endpoint {
  const endpoint = baseEndpoint(doc, path, method, op);
  const consumes = stringList(op.consumes ?? doc.consumes);
  const produces = stringList(op.produces ?? doc.produces);
  const form: Record<string, unknown>[] = [];
  for (const raw of mergeParameters(doc, item.parameters, op.parameters)) {
    if (raw.in === 'body') {
      const contentType = pickRequestContentType(consumes.length > 0 ? consumes : ['application/json']);
      const requestBody: NonNullable<Endpoint['requestBody']> = {
        required: raw.required === true,
        contentType: contentType ?? 'application/json',
        schema: withoutFlagged(converter.convert(raw.schema), 'readOnly', converter),
      };
      if (typeof raw.description === 'string' && raw.description.trim())
        requestBody.description = raw.description.trim();
      endpoint.requestBody = requestBody;
    } else if (raw.in === 'formData') {
      form.push(raw);
    } else {
      const param = swaggerParameter(converter, raw);
      if (param) endpoint.parameters.push(param);
    }
  }
  if (form.length > 0 && !endpoint.requestBody) {
    const hasFile = form.some((p) => p.type === 'file');
    const multipart =
      hasFile ||
      (consumes.includes('multipart/form-data') && !consumes.includes('application/x-www-form-urlencoded'));
    const properties: Record<string, JsonSchema> = {};
    const required: string[] = [];
    const encoding: BodyEncoding = {};
    for (const p of form) {
      const name = String(p.name);
      if (p.type === 'array') encoding[name] = collectionEncoding(p.collectionFormat);
      const schema = converter.convert(inlineSchema(p));
      if (isPlainObject(schema) && typeof p.description === 'string' && p.description.trim())
        schema.description = p.description.trim();
      properties[name] = schema;
      if (p.required === true) required.push(name);
    }
    const schema: Record<string, unknown> = { type: 'object', properties };
    if (required.length > 0) schema.required = required;
    endpoint.requestBody = {
      required: required.length > 0,
      contentType: multipart ? 'multipart/form-data' : 'application/x-www-form-urlencoded',
      schema,
      ...(Object.keys(encoding).length > 0 ? { encoding } : {}),
    };
  }
  const jsonOut = produces.length === 0 || produces.some(mediaRangeAdmitsJson);
  const response = pickResponse(doc, op.responses, (resp) =>
    jsonOut && resp.schema !== undefined
      ? { contentType: produces.find(mediaRangeAdmitsJson) ?? 'application/json', schema: resp.schema }
      : { contentType: produces[0] },
  );
  if (response) endpoint.response = finishResponse(converter, response);
  return endpoint;
}

function openApiParameter(converter: SchemaConverter, raw: Record<string, unknown>): Parameter | undefined {
  if (typeof raw.name !== 'string' || typeof raw.in !== 'string' || !LOCATIONS.has(raw.in)) return undefined;
  let schemaSource: unknown = raw.schema;
  if (schemaSource === undefined && isPlainObject(raw.content)) {
    const first = Object.keys(raw.content).sort(compareStrings)[0];
    const media = first === undefined ? undefined : raw.content[first];
    schemaSource = isPlainObject(media) ? media.schema : undefined;
  }
  const param: Parameter = {
    name: raw.name,
    in: raw.in as Parameter['in'],
    required: raw.in === 'path' ? true : raw.required === true,
    schema: schemaSource === undefined ? { type: 'string' } : converter.convert(schemaSource),
  };
  if (typeof raw.description === 'string' && raw.description.trim())
    param.description = raw.description.trim();
  if (raw.deprecated === true) param.deprecated = true;
  if (typeof raw.style === 'string' && STYLES.has(raw.style)) param.style = raw.style as Style;
  if (typeof raw.explode === 'boolean') param.explode = raw.explode;
  return param;
}

function swaggerParameter(converter: SchemaConverter, raw: Record<string, unknown>): Parameter | undefined {
  if (typeof raw.name !== 'string' || typeof raw.in !== 'string' || !LOCATIONS.has(raw.in)) return undefined;
  const param: Parameter = {
    name: raw.name,
    in: raw.in as Parameter['in'],
    required: raw.in === 'path' ? true : raw.required === true,
    schema: converter.convert(inlineSchema(raw)),
  };
  if (typeof raw.description === 'string' && raw.description.trim())
    param.description = raw.description.trim();
  const format = raw.collectionFormat;
  if (raw.type === 'array') {
    if (format === 'multi') {
      param.style = 'form';
      param.explode = true;
    } else if (format === 'ssv') {
      param.style = 'spaceDelimited';
      param.explode = false;
    } else if (format === 'pipes') {
      param.style = 'pipeDelimited';
      param.explode = false;
    } else {
      // csv is the Swagger 2.0 default; tsv has no OpenAPI 3 equivalent (see the ledger).
      param.style = raw.in === 'query' || raw.in === 'cookie' ? 'form' : 'simple';
      param.explode = false;
    }
  }
  return param;
}

type BodyEncoding = NonNullable<NonNullable<Endpoint['requestBody']>['encoding']>;
type PropertyEncoding = BodyEncoding[string];
const BODY_STYLES = new Set(['form', 'spaceDelimited', 'pipeDelimited', 'deepObject']);

/**
 * The Encoding Object of a form or multipart body (OpenAPI 3.x), per property: style, explode
 * and contentType as declared (`allowReserved` and `headers` are not kept; see the ledger).
 */
function bodyEncodingOf(contentType: string, raw: unknown): BodyEncoding | undefined {
  const type = contentType.toLowerCase().split(';')[0]!.trim();
  if (type !== 'application/x-www-form-urlencoded' && !type.startsWith('multipart/')) return undefined;
  if (!isPlainObject(raw)) return undefined;
  const out: BodyEncoding = {};
  for (const name of Object.keys(raw).sort(compareStrings)) {
    const entry = raw[name];
    if (!isPlainObject(entry)) continue;
    const encoding: PropertyEncoding = {};
    if (typeof entry.style === 'string' && BODY_STYLES.has(entry.style))
      encoding.style = entry.style as NonNullable<PropertyEncoding['style']>;
    if (typeof entry.explode === 'boolean') encoding.explode = entry.explode;
    if (typeof entry.contentType === 'string' && entry.contentType.trim())
      encoding.contentType = entry.contentType.trim();
    if (Object.keys(encoding).length > 0) out[name] = encoding;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A Swagger 2.0 formData array's collectionFormat as an encoding (csv is its default). */
function collectionEncoding(format: unknown): PropertyEncoding {
  if (format === 'multi') return { style: 'form', explode: true };
  if (format === 'ssv') return { style: 'spaceDelimited', explode: false };
  if (format === 'pipes') return { style: 'pipeDelimited', explode: false };
  return { style: 'form', explode: false };
}

/** Path-level then operation-level parameters, the operation's winning on the same (in, name). */
function mergeParameters(
  doc: Record<string, unknown>,
  pathLevel: unknown,
  opLevel: unknown,
): Record<string, unknown>[] {
  const merged = new Map<string, Record<string, unknown>>();
  for (const list of [pathLevel, opLevel]) {
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const param = deref(doc, entry);
      if (!isPlainObject(param) || typeof param.name !== 'string' || typeof param.in !== 'string') continue;
      merged.set(`${param.in}\u0000${param.name}`, param);
    }
  }
  return [...merged.values()];
}

interface PickedResponse {
  status: string;
  description?: string;
  contentType?: string;
  schema?: unknown;
}

function pickResponse(
  doc: Record<string, unknown>,
  responses: unknown,
  content: (resp: Record<string, unknown>) => { contentType?: string; schema?: unknown },
): PickedResponse | undefined {
  if (!isPlainObject(responses)) return undefined;
  const success = Object.keys(responses)
    .filter((code) => /^2(\d\d|XX)$/i.test(code))
    .sort(compareStrings);
  const candidates: PickedResponse[] = [];
  for (const status of [...success, ...(Object.hasOwn(responses, 'default') ? ['default'] : [])]) {
    const resp = deref(doc, responses[status]);
    if (!isPlainObject(resp)) continue;
    const picked: PickedResponse = { status, ...content(resp) };
    if (typeof resp.description === 'string' && resp.description.trim())
      picked.description = resp.description.trim();
    candidates.push(picked);
  }
  const twoxx = candidates.filter((c) => c.status !== 'default');
  return twoxx.find((c) => c.schema !== undefined) ?? twoxx[0] ?? candidates[0];
}

function finishResponse(
  converter: SchemaConverter,
  picked: PickedResponse,
): NonNullable<Endpoint['response']> {
  const response: NonNullable<Endpoint['response']> = { status: picked.status };
  if (picked.contentType) response.contentType = picked.contentType;
  if (picked.description) response.description = picked.description;
  if (picked.schema !== undefined)
    response.schema = withoutFlagged(converter.convert(picked.schema), 'writeOnly', converter);
  return response;
}

/**
 * A request body should not ask for server-set (readOnly) fields, nor a response describe
 * writeOnly ones. Done only where it is simple: the body's own top-level properties (through
 * one $ref), leaving shared definitions untouched.
 */
function withoutFlagged(
  schema: JsonSchema,
  flag: 'readOnly' | 'writeOnly',
  converter: SchemaConverter,
): JsonSchema {
  if (!isPlainObject(schema)) return schema;
  let target: JsonSchema = schema;
  if (typeof schema.$ref === 'string') {
    target = converter.defs.get(schema.$ref.slice('#/$defs/'.length)) ?? schema;
  }
  if (!isPlainObject(target) || !isPlainObject(target.properties)) return schema;
  const properties = target.properties as Record<string, unknown>;
  const flagged = Object.keys(properties).filter(
    (k) => isPlainObject(properties[k]) && properties[k]?.[flag] === true,
  );
  if (flagged.length === 0 || flagged.length === Object.keys(properties).length) return schema;
  const kept: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) if (!flagged.includes(key)) kept[key] = properties[key];
  const copy: Record<string, unknown> = { ...target, properties: kept };
  if (Array.isArray(target.required)) {
    const required = (target.required as string[]).filter((r) => !flagged.includes(r));
    if (required.length > 0) copy.required = required;
    else delete copy.required;
  }
  if (target !== schema && typeof schema.description === 'string') copy.description = schema.description;
  return copy;
}

function effectiveSecurity(doc: Record<string, unknown>, op: Record<string, unknown>): string[][] {
  const list = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  return list.filter(isPlainObject).map((req) => Object.keys(req).sort(compareStrings));
}

/**
 * The OAuth scopes the operation's security requirements name, for its oauth2 and
 * openIdConnect schemes (OpenAPI 3.x components.securitySchemes, Swagger 2.0
 * securityDefinitions), across every alternative: sorted, unique.
 */
function oauthScopes(doc: Record<string, unknown>, op: Record<string, unknown>): string[] {
  const list = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  const components = isPlainObject(doc.components) ? doc.components.securitySchemes : undefined;
  const schemes = isPlainObject(components)
    ? components
    : isPlainObject(doc.securityDefinitions)
      ? doc.securityDefinitions
      : {};
  const scopes = new Set<string>();
  for (const requirement of list) {
    if (!isPlainObject(requirement)) continue;
    for (const [name, names] of Object.entries(requirement)) {
      const scheme = (schemes as Record<string, unknown>)[name];
      const type = isPlainObject(scheme) ? scheme.type : undefined;
      if ((type !== 'oauth2' && type !== 'openIdConnect') || !Array.isArray(names)) continue;
      for (const s of names) if (typeof s === 'string' && s !== '') scopes.add(s);
    }
  }
  return [...scopes].sort(compareStrings);
}

/** request body content type preference: JSON, form, multipart, text, bytes, then anything else. */
export function pickRequestContentType(types: readonly string[]): string | undefined {
  const lower = [...types].sort(compareStrings);
  const by = (test: (t: string) => boolean) => lower.find((t) => test(t.toLowerCase().split(';')[0]!.trim()));
  return (
    by((t) => t === 'application/json') ??
    by(mediaRangeAdmitsJson) ??
    by((t) => t === 'application/x-www-form-urlencoded') ??
    by((t) => t === 'multipart/form-data') ??
    by((t) => t.startsWith('multipart/')) ??
    by((t) => t === 'text/plain') ??
    by((t) => t === 'application/octet-stream') ??
    lower[0]
  );
}

/**
 * Whether a media type or range a description declares admits a JSON body: JSON itself, a
 * `+json` type, or a range that includes JSON (`*\/*`, `application/*`). Not the runtime's
 * `isJsonMediaType` (runtime/media-type.ts), which asks whether an answer's actual type is JSON.
 */
export function mediaRangeAdmitsJson(type: string): boolean {
  const t = type.toLowerCase().split(';')[0]!.trim();
  return t === 'application/json' || t.endsWith('+json') || t === '*/*' || t === 'application/*';
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** Reference Object fields that override the target's (OpenAPI 3.1 §4.8.23). */
const OVERRIDING = ['summary', 'description'] as const;

/**
 * Follows $ref chains to non-schema objects (parameters, bodies, responses, path items). A
 * `summary` or `description` written beside a `$ref` replaces the target's, the nearest
 * reference's first: OpenAPI 3.1 says so, and 3.0 and Swagger 2.0 documents write them with the
 * same intent (`{ $ref: Limit, description: 'Max items for this call' }`), as they do beside
 * schema references, whose description is kept in every version too (schema-convert.ts).
 */
function deref(doc: Record<string, unknown>, value: unknown): unknown {
  let node = value;
  const seen = new Set<string>();
  const own: Record<string, string> = {};
  while (isPlainObject(node) && typeof node.$ref === 'string') {
    for (const key of OVERRIDING) {
      const text = node[key];
      if (own[key] === undefined && typeof text === 'string' && text.trim()) own[key] = text;
    }
    if (seen.has(node.$ref)) return undefined;
    seen.add(node.$ref);
    node = resolvePointer(doc, node.$ref);
  }
  return isPlainObject(node) && Object.keys(own).length > 0 ? { ...node, ...own } : node;
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
