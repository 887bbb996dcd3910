/**
 * Form fields of an `application/x-www-form-urlencoded` or `multipart/form-data` body, serialized
 * as the OpenAPI Encoding Object of the property says (OpenAPI 3.1 §4.8.15, style values as for
 * query parameters, §4.8.12.4): `form` (explode: repeated `name=v`, or `name=a,b`; objects spill
 * their keys), `spaceDelimited` / `pipeDelimited`, and `deepObject` (`name[key]=v`, nested keys
 * nested, arrays as `name[]=v`, arrays of objects as `name[0][key]=v`, as Stripe and Rails
 * read them). Pure: the pairs come back unencoded; the caller percent-encodes them.
 */
import { isPlainObject } from '../core/is-plain-object.js';
import type { SvcTool } from '../schemas/types.js';

export type FieldEncoding = NonNullable<NonNullable<SvcTool['body']>['encoding']>[string];

function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return '';
  return JSON.stringify(value);
}

/** What svc sent before encodings were recorded: strings as they are, anything else as JSON. */
function legacyText(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function isJsonType(contentType: string | undefined): boolean {
  if (!contentType) return false;
  const t = contentType.toLowerCase().split(';')[0]!.trim();
  return t === 'application/json' || t.endsWith('+json');
}

/** Whether the encoding asks for a style (rather than only a part's content type). */
export function hasStyle(encoding: FieldEncoding | undefined): boolean {
  return encoding !== undefined && (encoding.style !== undefined || encoding.explode !== undefined);
}

/** `name[key]…=value` pairs of a deepObject value. */
export function deepObjectPairs(name: string, value: unknown): [string, string][] {
  if (Array.isArray(value)) {
    const nested = value.some((v) => isPlainObject(v) || Array.isArray(v));
    return value.flatMap((item, i) => deepObjectPairs(nested ? `${name}[${i}]` : `${name}[]`, item));
  }
  if (isPlainObject(value)) {
    return Object.entries(value).flatMap(([k, v]) =>
      v === undefined ? [] : deepObjectPairs(`${name}[${k}]`, v),
    );
  }
  return [[name, text(value)]];
}

/** The unencoded name/value pairs of one form field. */
export function formFieldPairs(
  name: string,
  value: unknown,
  encoding: FieldEncoding | undefined,
): [string, string][] {
  if (value === undefined) return [];
  if (encoding === undefined || !hasStyle(encoding)) {
    // A JSON content type sends the value as JSON; without any encoding, scalars go as text,
    // arrays as repeated fields (form, explode: the spec's default) and objects as JSON.
    if (isJsonType(encoding?.contentType))
      return [[name, typeof value === 'string' ? value : JSON.stringify(value)]];
    if (Array.isArray(value)) return value.map((item) => [name, legacyText(item)]);
    return [[name, legacyText(value)]];
  }
  const style = encoding.style ?? 'form';
  const explode = encoding.explode ?? style === 'form';
  if (style === 'deepObject') return deepObjectPairs(name, value);
  if (Array.isArray(value)) {
    const items = value.map(text);
    if (explode && style === 'form') return items.map((v) => [name, v]);
    const sep = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',';
    return [[name, items.join(sep)]];
  }
  if (isPlainObject(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined);
    if (explode && style === 'form') return entries.map(([k, v]) => [k, text(v)]);
    const sep = style === 'spaceDelimited' ? ' ' : style === 'pipeDelimited' ? '|' : ',';
    return [[name, entries.flatMap(([k, v]) => [k, text(v)]).join(sep)]];
  }
  return [[name, text(value)]];
}
