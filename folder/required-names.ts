/**
 * `required` names that no property declares. Its own module, without Ajv: the importer marks
 * such names when it builds tools (generator/tools/declare-required.ts), and checkTools reports
 * them in a folder; neither should pay for loading the schema compiler.
 */
import { isPlainObject } from '../core/is-plain-object.js';

const SUBSCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMAS = [
  'items',
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];

/**
 * Each `required` name no property of its object declares, as [pointer of the entry, name]. Only
 * where the object's properties are all spelled out at that level: a node that also uses
 * patternProperties, an additionalProperties schema, $ref or a composition keyword may declare
 * the name elsewhere.
 */
export function undeclaredRequired(schema: unknown): [string, string][] {
  const out: [string, string][] = [];
  ghostRequired(schema, '', out);
  return out;
}

export function ghostRequired(schema: unknown, pointer: string, out: [string, string][], depth = 0): void {
  if (!isPlainObject(schema) || depth > 64) return;
  const required = schema.required;
  const open =
    schema.patternProperties !== undefined ||
    isPlainObject(schema.additionalProperties) ||
    SUBSCHEMA_LISTS.some((k) => k !== 'prefixItems' && schema[k] !== undefined) ||
    schema.$ref !== undefined ||
    schema.dependentSchemas !== undefined ||
    schema.if !== undefined;
  if (Array.isArray(required) && !open) {
    const props = isPlainObject(schema.properties) ? schema.properties : {};
    required.forEach((name, i) => {
      if (typeof name === 'string' && !Object.hasOwn(props, name))
        out.push([`${pointer}/required/${i}`, name]);
    });
  }
  const esc = (k: string) => k.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const key of SUBSCHEMA_MAPS) {
    const map = schema[key];
    if (isPlainObject(map))
      for (const [k, v] of Object.entries(map))
        ghostRequired(v, `${pointer}/${key}/${esc(k)}`, out, depth + 1);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = schema[key];
    if (Array.isArray(list))
      for (const [i, v] of list.entries()) ghostRequired(v, `${pointer}/${key}/${i}`, out, depth + 1);
  }
  for (const key of SUBSCHEMAS) ghostRequired(schema[key], `${pointer}/${key}`, out, depth + 1);
}
