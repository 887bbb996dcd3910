/**
 * The discriminators of a document's component schemas (issue 24), for the diff: the property
 * that names a `oneOf`/`anyOf` variant and the value → variant mapping, with the implicit
 * mapping (a variant's component name) made explicit, so a document that writes out the mapping
 * it always had reads the same. Targets are `$defs` names. The schema conversion leaves
 * `discriminator` out (it is no JSON Schema keyword), so this is read from the document, once.
 */
import { isPlainObject } from '../../core/is-plain-object.js';
import type { SpecVersion } from '../parse/index.js';
import type { SchemaConverter } from './schema-convert.js';

export interface Discriminator {
  propertyName: string;
  mapping: Record<string, string>;
}

const byConverter = new WeakMap<SchemaConverter, Map<string, Discriminator>>();

/** Discriminators by the `$defs` name of the component schema that carries them (empty for most documents). */
export function documentDiscriminators(
  doc: Record<string, unknown>,
  converter: SchemaConverter,
  version: SpecVersion,
): Map<string, Discriminator> {
  let found = byConverter.get(converter);
  if (found) return found;
  found = new Map();
  byConverter.set(converter, found);
  const holder =
    version === 'swagger-2.0'
      ? doc.definitions
      : isPlainObject(doc.components)
        ? doc.components.schemas
        : undefined;
  if (!isPlainObject(holder)) return found;
  for (const [raw, schema] of Object.entries(holder)) {
    const name = converter.componentDefName(raw);
    const d = name ? discriminatorOf(schema, converter) : undefined;
    if (d) found.set(name!, d);
  }
  return found;
}

/** The discriminator a schema of the document carries (undefined without one). */
export function discriminatorOf(schema: unknown, converter: SchemaConverter): Discriminator | undefined {
  if (!isPlainObject(schema) || schema.discriminator === undefined) return undefined;
  const d = schema.discriminator;
  // Swagger 2.0 names only the property; its variants are the schemas that allOf this one.
  const propertyName = typeof d === 'string' ? d : isPlainObject(d) ? d.propertyName : undefined;
  if (typeof propertyName !== 'string') return undefined;
  const mapping: Record<string, string> = {};
  for (const list of [schema.oneOf, schema.anyOf]) {
    for (const variant of Array.isArray(list) ? list : []) {
      if (!isPlainObject(variant) || typeof variant.$ref !== 'string') continue;
      const target = converter.componentDefName(variant.$ref);
      const value = variant.$ref.slice(variant.$ref.lastIndexOf('/') + 1);
      if (target) mapping[value] = target;
    }
  }
  if (isPlainObject(d) && isPlainObject(d.mapping)) {
    for (const [value, ref] of Object.entries(d.mapping)) {
      if (typeof ref !== 'string') continue;
      const target = converter.componentDefName(ref);
      if (target) mapping[value] = target;
    }
  }
  const sorted: Record<string, string> = {};
  for (const value of Object.keys(mapping).sort()) sorted[value] = mapping[value]!;
  return { propertyName, mapping: sorted };
}
