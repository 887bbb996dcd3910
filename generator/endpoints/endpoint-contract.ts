/**
 * What the diff reads beyond what tools need (issue 24): every request and response media type,
 * every response status with its headers and links, callbacks, security scopes, and lifecycle
 * metadata (`x-sunset`, `x-stability-level`). Kept in one optional `contract` field, apart from
 * the fields tools are built from, so the tools (and their fingerprints) do not change with it.
 * Schemas that only these parts reference are carried in `contract.defs`.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { Endpoint } from '../../schemas/types.js';
import type { SpecVersion } from '../parse/index.js';
import { resolvePointer } from '../parse/index.js';
import { type Discriminator, discriminatorOf, documentDiscriminators } from './discriminators.js';
import { collectDefRefs, DEFS_PREFIX, type JsonSchema, type SchemaConverter } from './schema-convert.js';

type Contract = NonNullable<Endpoint['contract']>;
type ResponseContract = NonNullable<Contract['responses']>[string];
type Obj = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

const pointers = new WeakMap<Obj, Map<string, unknown>>();

/** Follows $ref chains to non-schema objects; shared responses and headers are looked up once per document. */
function deref(doc: Obj, value: unknown): unknown {
  if (!isPlainObject(value) || typeof value.$ref !== 'string') return value;
  let cache = pointers.get(doc);
  if (!cache) {
    cache = new Map();
    pointers.set(doc, cache);
  }
  const ref = value.$ref;
  if (cache.has(ref)) return cache.get(ref);
  let node: unknown = value;
  const seen = new Set<string>();
  while (isPlainObject(node) && typeof node.$ref === 'string') {
    if (seen.has(node.$ref)) {
      node = undefined;
      break;
    }
    seen.add(node.$ref);
    node = resolvePointer(doc, node.$ref);
  }
  cache.set(ref, node);
  return node;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string' && value.trim()) return value.trim();
  // YAML reads an unquoted date as a Date.
  if (value instanceof Date && !Number.isNaN(value.getTime())) return value.toISOString().slice(0, 10);
  return undefined;
}

function sorted<T>(record: Record<string, T>): Record<string, T> {
  const out: Record<string, T> = {};
  for (const key of Object.keys(record).sort()) out[key] = record[key]!;
  return out;
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

/** A Swagger 2.0 header, items or non-body parameter carries its schema keywords on itself. */
export function inlineSchema(raw: Obj): Obj {
  const {
    name: _n,
    in: _i,
    required: _r,
    description: _d,
    collectionFormat: _c,
    allowEmptyValue: _a,
    ...rest
  } = raw;
  return rest;
}

export function endpointContract(
  doc: Obj,
  converter: SchemaConverter,
  version: SpecVersion,
  item: Obj,
  op: Obj,
  endpoint: Endpoint,
): Contract | undefined {
  const swagger = version === 'swagger-2.0';
  const contract: Contract = {};
  const sunset = text(op['x-sunset']);
  if (sunset) contract.sunset = sunset;
  const stability = text(op['x-stability-level']);
  if (stability) contract.stability = stability.toLowerCase();

  const sunsets: Record<string, string> = {};
  for (const list of [item.parameters, op.parameters]) {
    for (const entry of Array.isArray(list) ? list : []) {
      const p = deref(doc, entry);
      if (!isPlainObject(p) || typeof p.name !== 'string' || typeof p.in !== 'string') continue;
      const s = text(p['x-sunset']);
      if (s) sunsets[`${p.in}:${p.name}`] = s;
    }
  }
  if (Object.keys(sunsets).length > 0) contract.parameterSunsets = sorted(sunsets);

  const security = Array.isArray(op.security) ? op.security : Array.isArray(doc.security) ? doc.security : [];
  const scoped = security.filter(isPlainObject).map((req) => {
    const out: Record<string, string[]> = {};
    for (const name of Object.keys(req).sort()) out[name] = [...new Set(stringList(req[name]))].sort();
    return out;
  });
  if (scoped.some((req) => Object.values(req).some((scopes) => scopes.length > 0)))
    contract.securityScopes = scoped;

  if (swagger) swaggerMedia(doc, converter, op, contract);
  else openApiMedia(doc, converter, op, contract);

  const schemas: unknown[] = [];
  for (const s of Object.values(contract.requestMedia ?? {})) schemas.push(s);
  for (const r of Object.values(contract.responses ?? {})) {
    for (const s of Object.values(r.media ?? {})) schemas.push(s);
    for (const h of Object.values(r.headers ?? {})) schemas.push(h.schema);
  }
  for (const c of Object.values(contract.callbacks ?? {})) for (const s of Object.values(c)) schemas.push(s);
  // Only the refs the endpoint's own defs lack are followed: their closure is already there.
  const have = new Set(Object.keys(endpoint.defs ?? {}));
  const roots = new Set<string>();
  for (const schema of schemas)
    for (const name of collectDefRefs(schema)) if (!have.has(name)) roots.add(name);
  const extra =
    roots.size === 0
      ? []
      : converter
          .closure([...roots].map((name) => ({ $ref: DEFS_PREFIX + name })))
          .filter((name) => !have.has(name));
  if (extra.length > 0) {
    const defs: Record<string, JsonSchema> = {};
    for (const name of extra) defs[name] = converter.defs.get(name) ?? {};
    contract.defs = defs;
  }
  const discriminators = documentDiscriminators(doc, converter, version);
  if (discriminators.size > 0) {
    const own: NonNullable<Contract['discriminators']> = { ...contract.discriminators };
    for (const defs of [endpoint.defs, contract.defs])
      for (const name of Object.keys(defs ?? {})) {
        const d = discriminators.get(name);
        if (d) own[name] = d;
      }
    if (Object.keys(own).length > 0) contract.discriminators = sorted(own);
  }
  return Object.keys(contract).length > 0 ? contract : undefined;
}

/** Discriminators written inline at a body's root, by `#request[type]` or `#response/<status>[type]`. */
type InlineDiscriminators = Record<string, Discriminator>;

function mediaSchemas(
  doc: Obj,
  converter: SchemaConverter,
  content: unknown,
  inline?: { at: string; into: InlineDiscriminators },
): Record<string, JsonSchema> {
  const out: Record<string, JsonSchema> = {};
  if (!isPlainObject(content)) return out;
  for (const type of Object.keys(content).sort()) {
    const media = deref(doc, content[type]);
    out[type] = isPlainObject(media) && media.schema !== undefined ? converter.convert(media.schema) : {};
    const d = inline && isPlainObject(media) ? discriminatorOf(media.schema, converter) : undefined;
    if (d) inline!.into[`${inline!.at}[${type}]`] = d;
  }
  return out;
}

function headerSchemas(
  doc: Obj,
  converter: SchemaConverter,
  headers: unknown,
  swagger: boolean,
): ResponseContract['headers'] {
  if (!isPlainObject(headers)) return undefined;
  const out: NonNullable<ResponseContract['headers']> = {};
  for (const name of Object.keys(headers).sort()) {
    const h = deref(doc, headers[name]);
    if (!isPlainObject(h)) continue;
    let source: unknown = swagger ? inlineSchema(h) : h.schema;
    if (!swagger && source === undefined && isPlainObject(h.content)) {
      const first = Object.keys(h.content).sort()[0];
      const media = first === undefined ? undefined : deref(doc, h.content[first]);
      source = isPlainObject(media) ? media.schema : undefined;
    }
    const header: NonNullable<ResponseContract['headers']>[string] = {
      required: h.required === true,
      schema: source === undefined ? {} : converter.convert(source),
    };
    if (h.deprecated === true) header.deprecated = true;
    out[name.toLowerCase()] = header;
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

function openApiMedia(doc: Obj, converter: SchemaConverter, op: Obj, contract: Contract): void {
  const inline: InlineDiscriminators = {};
  const body = deref(doc, op.requestBody);
  if (isPlainObject(body) && isPlainObject(body.content) && Object.keys(body.content).length > 0)
    contract.requestMedia = mediaSchemas(doc, converter, body.content, { at: '#request', into: inline });
  const responses = isPlainObject(op.responses) ? op.responses : {};
  const out: NonNullable<Contract['responses']> = {};
  for (const status of Object.keys(responses).sort()) {
    const resp = deref(doc, responses[status]);
    if (!isPlainObject(resp)) continue;
    const r: ResponseContract = {};
    const key = status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase();
    const media = mediaSchemas(doc, converter, resp.content, { at: `#response/${key}`, into: inline });
    if (Object.keys(media).length > 0) r.media = media;
    const headers = headerSchemas(doc, converter, resp.headers, false);
    if (headers) r.headers = headers;
    if (isPlainObject(resp.links) && Object.keys(resp.links).length > 0)
      r.links = Object.keys(resp.links).sort();
    out[key] = r;
  }
  if (Object.keys(out).length > 0) contract.responses = out;
  if (Object.keys(inline).length > 0) contract.discriminators = inline;
  if (isPlainObject(op.callbacks)) {
    const callbacks: NonNullable<Contract['callbacks']> = {};
    for (const name of Object.keys(op.callbacks).sort()) {
      const cb = deref(doc, op.callbacks[name]);
      if (!isPlainObject(cb)) continue;
      const ops: Record<string, JsonSchema> = {};
      for (const expression of Object.keys(cb).sort()) {
        const pathItem = deref(doc, cb[expression]);
        if (!isPlainObject(pathItem)) continue;
        for (const method of METHODS) {
          const cop = pathItem[method];
          if (!isPlainObject(cop)) continue;
          const cbody = deref(doc, cop.requestBody);
          const media = isPlainObject(cbody) ? mediaSchemas(doc, converter, cbody.content) : {};
          const type = Object.keys(media).find((t) => t.includes('json')) ?? Object.keys(media)[0];
          ops[`${method.toUpperCase()} ${expression}`] = type === undefined ? {} : media[type]!;
        }
      }
      callbacks[name] = ops;
    }
    if (Object.keys(callbacks).length > 0) contract.callbacks = callbacks;
  }
}

function swaggerMedia(doc: Obj, converter: SchemaConverter, op: Obj, contract: Contract): void {
  const consumes = stringList(op.consumes ?? doc.consumes);
  const produces = stringList(op.produces ?? doc.produces);
  const params = Array.isArray(op.parameters) ? op.parameters.map((p) => deref(doc, p)) : [];
  const body = params.find((p) => isPlainObject(p) && p.in === 'body') as Obj | undefined;
  if (body) {
    const schema = converter.convert(body.schema);
    const media: Record<string, JsonSchema> = {};
    for (const type of (consumes.length > 0 ? consumes : ['application/json']).sort()) media[type] = schema;
    contract.requestMedia = media;
  }
  const responses = isPlainObject(op.responses) ? op.responses : {};
  const out: NonNullable<Contract['responses']> = {};
  for (const status of Object.keys(responses).sort()) {
    const resp = deref(doc, responses[status]);
    if (!isPlainObject(resp)) continue;
    const r: ResponseContract = {};
    if (resp.schema !== undefined) {
      const schema = converter.convert(resp.schema);
      const media: Record<string, JsonSchema> = {};
      for (const type of (produces.length > 0 ? produces : ['application/json']).sort()) media[type] = schema;
      r.media = media;
    }
    const headers = headerSchemas(doc, converter, resp.headers, true);
    if (headers) r.headers = headers;
    out[status.toUpperCase() === 'DEFAULT' ? 'default' : status.toUpperCase()] = r;
  }
  if (Object.keys(out).length > 0) contract.responses = out;
}
