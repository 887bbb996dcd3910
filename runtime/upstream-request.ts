/**
 * Builds the upstream HTTP request of a tool call from the tool's location record. Pure: data
 * in, data out. Every rule that keeps arguments from steering the request lives here: path
 * values are percent-encoded and `.`/`..` refused, header values with CR/LF/NUL refused,
 * reserved headers refused, and the final URL is checked to still sit under apiBaseUrl.
 */
import { isPlainObject } from '../core/is-plain-object.js';
import type { SvcConfig, SvcTool } from '../schemas/types.js';
import { deepObjectPairs, formFieldPairs, hasStyle } from './form-encoding.js';
import { encodeStrict } from './percent-encode.js';

export { encodeStrict };

export interface UpstreamRequest {
  method: string;
  /** Absolute URL, origin always equal to config.apiBaseUrl's origin. */
  url: string;
  headers: Record<string, string>;
  body?: string | FormData | Uint8Array<ArrayBuffer>;
}

export type BuildResult = { ok: true; request: UpstreamRequest } | { ok: false; problems: string[] };

/** Headers an argument may never set: they belong to the transport or to the credential. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'proxy-authorization',
  'proxy-connection',
  'expect',
  'cookie',
]);
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
const UNSAFE_HEADER_VALUE = /[\r\n\0]/;
/** RFC 9110 field-value: visible ASCII, space and tab. Anything else fails in the HTTP stack, far from its cause. */
const NON_HEADER_CHAR = /[^\t\x20-\x7e]/u;

function describeNonHeaderChar(text: string): string | undefined {
  const found = NON_HEADER_CHAR.exec(text);
  if (!found) return undefined;
  const cp = found[0].codePointAt(0)!;
  return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} at position ${[...text.slice(0, found.index)].length + 1}`;
}

function scalarText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return JSON.stringify(value);
}

function pathValue(
  name: string,
  value: unknown,
  style: string | undefined,
  explode: boolean,
  problems: string[],
) {
  const raw: string[] = [];
  let items: string[];
  if (Array.isArray(value)) {
    raw.push(...value.map(scalarText));
    items = raw.map(encodeStrict);
  } else if (isPlainObject(value)) {
    const entries = Object.entries(value).map(([k, v]) => [k, scalarText(v)] as const);
    for (const [k, v] of entries) raw.push(k, v);
    items = explode
      ? entries.map(([k, v]) => `${encodeStrict(k)}=${encodeStrict(v)}`)
      : entries.flatMap(([k, v]) => [encodeStrict(k), encodeStrict(v)]);
  } else {
    const text = scalarText(value);
    if (text === '') problems.push(`path parameter "${name}" must not be empty`);
    raw.push(text);
    items = [encodeStrict(text)];
  }
  if (raw.some((part) => part === '.' || part === '..')) {
    problems.push(`path parameter "${name}" must not be "." or ".."`);
  }
  if (style === 'label') return `.${items.join(explode ? '.' : ',')}`;
  if (style === 'matrix') {
    const n = encodeStrict(name);
    return explode && Array.isArray(value)
      ? items.map((i) => `;${n}=${i}`).join('')
      : `;${n}=${items.join(',')}`;
  }
  return items.join(',');
}

function queryPairs(
  name: string,
  value: unknown,
  style: string | undefined,
  explode: boolean,
): [string, string][] {
  const effectiveStyle = style ?? 'form';
  if (Array.isArray(value)) {
    const items = value.map(scalarText);
    if (effectiveStyle === 'form' && explode) return items.map((v) => [name, v]);
    const sep = effectiveStyle === 'spaceDelimited' ? ' ' : effectiveStyle === 'pipeDelimited' ? '|' : ',';
    return [[name, items.join(sep)]];
  }
  if (isPlainObject(value)) {
    if (effectiveStyle === 'deepObject') return deepObjectPairs(name, value);
    if (explode) return Object.entries(value).map(([k, v]) => [k, scalarText(v)]);
    return [
      [
        name,
        Object.entries(value)
          .flatMap(([k, v]) => [k, scalarText(v)])
          .join(','),
      ],
    ];
  }
  return [[name, scalarText(value)]];
}

function headerText(value: unknown): string {
  if (Array.isArray(value)) return value.map(scalarText).join(',');
  if (isPlainObject(value)) {
    return Object.entries(value)
      .map(([k, v]) => `${k}=${scalarText(v)}`)
      .join(',');
  }
  return scalarText(value);
}

function propertySchema(tool: SvcTool, prop: string): Record<string, unknown> | undefined {
  const props = (tool.inputSchema as { properties?: Record<string, unknown> }).properties;
  const schema = props?.[prop];
  return isPlainObject(schema) ? schema : undefined;
}

function isBase64Schema(schema: unknown): boolean {
  if (!isPlainObject(schema)) return false;
  return schema.contentEncoding === 'base64' || schema.format === 'byte' || schema.format === 'binary';
}

function isBase64Property(tool: SvcTool, prop: string): boolean {
  return isBase64Schema(propertySchema(tool, prop));
}

/** The schema of one field of a whole-body argument (through one local $ref). */
function bodyFieldSchema(tool: SvcTool, prop: string, field: string): unknown {
  let schema: unknown = propertySchema(tool, prop);
  const ref = isPlainObject(schema) ? schema.$ref : undefined;
  if (typeof ref === 'string' && ref.startsWith('#/$defs/')) {
    const defs = (tool.inputSchema as { $defs?: Record<string, unknown> }).$defs;
    schema = defs?.[ref.slice('#/$defs/'.length)];
  }
  const properties = isPlainObject(schema) ? schema.properties : undefined;
  return isPlainObject(properties) ? properties[field] : undefined;
}

// Standard or URL-safe alphabet, padding optional; line breaks and spaces are ignored.
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * Bytes of a base64 argument. Buffer.from would skip any character it does not know and send
 * whatever is left, so a file passed as plain text would reach the API as garbage: refused.
 */
function decodeBase64(argument: string, text: string, problems: string[]): Uint8Array<ArrayBuffer> {
  const compact = text.replace(/\s+/g, '');
  if (!BASE64.test(compact) || compact.replace(/=+$/, '').length % 4 === 1) {
    problems.push(
      `argument "${argument}" must be base64-encoded bytes (contentEncoding: base64), and it is not valid base64`,
    );
    return new Uint8Array(0);
  }
  return Uint8Array.from(Buffer.from(compact.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
}

function formValue(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

const baseCache = new Map<string, { origin: string; path: string } | null>();

/** apiBaseUrl parsed once per distinct value, not once per call. */
function parsedBase(apiBaseUrl: string): { origin: string; path: string } | null {
  let base = baseCache.get(apiBaseUrl);
  if (base === undefined) {
    try {
      const url = new URL(apiBaseUrl);
      base = { origin: url.origin, path: url.pathname.replace(/\/+$/, '') };
    } catch {
      base = null;
    }
    if (baseCache.size > 64) baseCache.clear();
    baseCache.set(apiBaseUrl, base);
  }
  return base;
}

export interface AuthPlacement {
  config: SvcConfig;
  secret?: string;
  /** basic only: the user name (SVC_UPSTREAM_USER); without it the secret is `user:password`. */
  user?: string;
}

/** The `user:password` pair of basic auth: from the user and secret, or the secret alone. */
export function basicCredentials(secret: string, user: string | undefined): string {
  return user === undefined ? secret : `${user}:${secret}`;
}

/** Where a tool call's arguments go: the path, the query, headers, cookies and the body. */
interface PlacedArguments {
  pathValues: Map<string, string>;
  query: [string, string][];
  headers: Record<string, string>;
  cookies: string[];
  bodyFields: Record<string, unknown>;
  wholeBody: { prop: string; value: unknown } | undefined;
}

type Location = NonNullable<SvcTool['locations'][string]>;

/** An argument sent as a header: a valid token, not reserved, ASCII without CR/LF/NUL. */
function placeHeader(
  prop: string,
  loc: Location,
  value: unknown,
  placed: PlacedArguments,
  problems: string[],
): void {
  const text = headerText(value);
  if (!HEADER_NAME.test(loc.name)) problems.push(`header name "${loc.name}" is not a valid HTTP token`);
  else if (RESERVED_HEADERS.has(loc.name.toLowerCase()))
    problems.push(`header "${loc.name}" cannot be set by an argument`);
  else if (UNSAFE_HEADER_VALUE.test(text))
    problems.push(`header "${loc.name}" must not contain CR, LF or NUL`);
  else {
    const bad = describeNonHeaderChar(text);
    if (bad)
      problems.push(
        `argument "${prop}" is sent in the HTTP header "${loc.name}", which only carries ASCII characters; it holds ${bad}`,
      );
    else placed.headers[loc.name.toLowerCase()] = text;
  }
}

function placeArguments(tool: SvcTool, args: Record<string, unknown>, problems: string[]): PlacedArguments {
  const placed: PlacedArguments = {
    pathValues: new Map(),
    query: [],
    headers: {},
    cookies: [],
    bodyFields: {},
    wholeBody: undefined,
  };
  for (const [prop, value] of Object.entries(args)) {
    const loc = tool.locations[prop];
    if (!loc || value === undefined) continue;
    const explode = loc.explode ?? (loc.in === 'query' || loc.in === 'cookie');
    switch (loc.in) {
      case 'path':
        placed.pathValues.set(
          loc.name,
          pathValue(loc.name, value, loc.style, loc.explode ?? false, problems),
        );
        break;
      case 'query':
        if (value === null) break;
        placed.query.push(...queryPairs(loc.name, value, loc.style, explode));
        break;
      case 'header':
        placeHeader(prop, loc, value, placed, problems);
        break;
      case 'cookie': {
        const text = headerText(value);
        if (UNSAFE_HEADER_VALUE.test(text))
          problems.push(`cookie "${loc.name}" must not contain CR, LF or NUL`);
        else placed.cookies.push(`${encodeStrict(loc.name)}=${encodeStrict(text)}`);
        break;
      }
      case 'body':
        if (loc.whole) placed.wholeBody = { prop, value };
        else placed.bodyFields[loc.name] = value;
        break;
    }
  }
  return placed;
}

/**
 * The absolute URL: the path template filled (every {name} must be supplied), the query (with
 * an api_key placed in it), and a check that it still sits under apiBaseUrl.
 */
function upstreamUrl(
  tool: SvcTool,
  base: { origin: string; path: string },
  placed: PlacedArguments,
  auth: AuthPlacement,
  problems: string[],
): URL | undefined {
  const filledPath = tool.endpoint.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const v = placed.pathValues.get(name);
    if (v === undefined) {
      problems.push(`path parameter "${name}" is required`);
      return '';
    }
    return v;
  });
  const { config } = auth;
  const query = placed.query;
  if (config.auth.mode === 'api_key' && config.auth.apiKey?.in === 'query' && auth.secret) {
    const keyName = config.auth.apiKey.name;
    for (let i = query.length - 1; i >= 0; i--) if (query[i]![0] === keyName) query.splice(i, 1);
    query.push([keyName, auth.secret]);
  }
  const search = query.map(([k, v]) => `${encodeStrict(k)}=${encodeStrict(v)}`).join('&');
  const urlText = `${base.origin}${base.path}${filledPath}${search ? `?${search}` : ''}`;
  let url: URL | undefined;
  try {
    url = new URL(urlText);
  } catch {
    problems.push('the arguments do not form a valid URL');
  }
  if (url && (url.origin !== base.origin || !url.pathname.startsWith(base.path))) {
    problems.push('the arguments would leave the API base URL');
  }
  return url;
}

type BodyEncoding = NonNullable<SvcTool['body']>['encoding'];

function formUrlencodedBody(payload: unknown, placed: PlacedArguments, encoding: BodyEncoding): string {
  const pairs: string[] = [];
  const fields = isPlainObject(payload) ? payload : { [placed.wholeBody?.prop ?? 'value']: payload };
  for (const [k, v] of Object.entries(fields)) {
    for (const [name, text] of formFieldPairs(k, v, encoding?.[k]))
      pairs.push(`${encodeStrict(name)}=${encodeStrict(text)}`);
  }
  return pairs.join('&');
}
/** A multipart form: base64 fields sent as files, styles and part content types as the encoding says. */
function multipartBody(
  tool: SvcTool,
  payload: unknown,
  placed: PlacedArguments,
  encoding: BodyEncoding,
  problems: string[],
): FormData {
  const { wholeBody } = placed;
  const form = new FormData();
  const fields = isPlainObject(payload) ? payload : { [wholeBody?.prop ?? 'file']: payload };
  for (const [k, v] of Object.entries(fields)) {
    if (v === undefined) continue;
    let argument: string;
    let schema: unknown;
    if (wholeBody && isPlainObject(payload)) {
      argument = `${wholeBody.prop}.${k}`;
      schema = bodyFieldSchema(tool, wholeBody.prop, k);
    } else {
      argument = Object.entries(tool.locations).find(([, l]) => l?.in === 'body' && l.name === k)?.[0] ?? k;
      schema = propertySchema(tool, argument);
    }
    const items = isPlainObject(schema) ? schema.items : undefined;
    const fieldEncoding = encoding?.[k];
    if (typeof v === 'string' && isBase64Schema(schema)) {
      form.append(k, new Blob([decodeBase64(argument, v, problems)]), k);
    } else if (Array.isArray(v) && isBase64Schema(items)) {
      v.forEach((item, i) => {
        if (typeof item === 'string') {
          form.append(k, new Blob([decodeBase64(`${argument}[${i}]`, item, problems)]), k);
        } else form.append(k, formValue(item));
      });
    } else if (hasStyle(fieldEncoding)) {
      for (const [name, text] of formFieldPairs(k, v, fieldEncoding)) form.append(name, text);
    } else if (Array.isArray(v)) {
      for (const item of v) form.append(k, formValue(item));
    } else if (fieldEncoding?.contentType) {
      // The part's own Content-Type, as the Encoding Object says (a JSON part, say).
      const [[, text] = [k, '']] = formFieldPairs(k, v, fieldEncoding);
      form.append(k, new Blob([text], { type: fieldEncoding.contentType }));
    } else form.append(k, formValue(v));
  }
  return form; // fetch sets the multipart content-type with its boundary.
}

/** The body in the tool's content type (JSON when none), with its Content-Type header. */
function encodeBody(
  tool: SvcTool,
  placed: PlacedArguments,
  headers: Record<string, string>,
  problems: string[],
): UpstreamRequest['body'] {
  const { wholeBody, bodyFields } = placed;
  if (wholeBody === undefined && Object.keys(bodyFields).length === 0) {
    if (tool.body?.required) problems.push('the request body is required');
    return undefined;
  }
  const ct = tool.body?.contentType ?? 'application/json';
  const payload = wholeBody !== undefined ? wholeBody.value : bodyFields;
  const encoding = tool.body?.encoding;
  switch (ct) {
    case 'application/json':
      headers['content-type'] = 'application/json';
      return JSON.stringify(payload);
    case 'application/x-www-form-urlencoded':
      headers['content-type'] = 'application/x-www-form-urlencoded';
      return formUrlencodedBody(payload, placed, encoding);
    case 'multipart/form-data':
      return multipartBody(tool, payload, placed, encoding, problems);
    case 'text/plain':
      headers['content-type'] = 'text/plain';
      return typeof payload === 'string' ? payload : JSON.stringify(payload);
    case 'application/octet-stream':
      headers['content-type'] = 'application/octet-stream';
      if (typeof payload !== 'string') return new TextEncoder().encode(JSON.stringify(payload));
      return wholeBody && isBase64Property(tool, wholeBody.prop)
        ? decodeBase64(wholeBody.prop, payload, problems)
        : new TextEncoder().encode(payload);
  }
  return undefined;
}

/** The upstream credential where config.auth puts it (bearer, basic, or an api_key header). */
function placeCredential(auth: AuthPlacement, headers: Record<string, string>, problems: string[]): void {
  const { config, secret } = auth;
  if (config.auth.mode === 'bearer' && secret) {
    headers.authorization = `Bearer ${secret}`;
  } else if (config.auth.mode === 'basic' && secret) {
    const pair = basicCredentials(secret, auth.user);
    headers.authorization = `Basic ${Buffer.from(pair, 'utf8').toString('base64')}`;
  } else if (config.auth.mode === 'api_key' && config.auth.apiKey?.in === 'header' && secret) {
    headers[config.auth.apiKey.name.toLowerCase()] = secret;
  }
  if (
    (config.auth.mode === 'bearer' ||
      (config.auth.mode === 'api_key' && config.auth.apiKey?.in === 'header')) &&
    secret &&
    describeNonHeaderChar(secret)
  ) {
    // Said without the character: the secret never appears in a message, not even in part.
    problems.push('SVC_UPSTREAM_SECRET holds characters an HTTP header cannot carry (only visible ASCII)');
  }
}

export function buildUpstreamRequest(
  tool: SvcTool,
  args: Record<string, unknown>,
  auth: AuthPlacement,
): BuildResult {
  const problems: string[] = [];
  const base = parsedBase(auth.config.apiBaseUrl);
  if (!base) return { ok: false, problems: ['config.yaml apiBaseUrl is not a valid URL'] };
  const placed = placeArguments(tool, args, problems);
  const url = upstreamUrl(tool, base, placed, auth, problems);
  const headers = placed.headers;
  if (placed.cookies.length > 0) headers.cookie = placed.cookies.join('; ');
  const body = encodeBody(tool, placed, headers, problems);
  placeCredential(auth, headers, problems);
  if (!headers.accept) headers.accept = 'application/json, */*;q=0.8';
  if (problems.length > 0 || !url) return { ok: false, problems: [...new Set(problems)] };
  const request: UpstreamRequest = { method: tool.endpoint.method, url: url.href, headers };
  if (body !== undefined) request.body = body;
  return { ok: true, request };
}
