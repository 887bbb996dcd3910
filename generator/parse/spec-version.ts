import { SvcError } from '../../core/svc-error.js';
import { placeFor } from './ref-walk.js';

export type SpecVersion = 'swagger-2.0' | 'openapi-3.0' | 'openapi-3.1';

/** Which description format a decoded document claims to be; anything else is refused. */
export function detectVersion(value: unknown, origin: string): SpecVersion {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new SvcError('SPEC_INVALID', `${origin} is not an OpenAPI or Swagger document (not an object)`, {
      place: placeFor(origin, ''),
    });
  }
  const record = value as Record<string, unknown>;
  if (record.swagger !== undefined) {
    if (record.swagger === '2.0') return 'swagger-2.0';
    throw new SvcError(
      'SPEC_INVALID',
      `${origin} declares swagger: ${JSON.stringify(record.swagger)}; only "2.0" (a string) is supported`,
      { place: placeFor(origin, '/swagger') },
    );
  }
  if (record.openapi !== undefined) {
    if (typeof record.openapi === 'string' && /^3\.0\.\d+$/.test(record.openapi)) return 'openapi-3.0';
    if (typeof record.openapi === 'string' && /^3\.1\.\d+$/.test(record.openapi)) return 'openapi-3.1';
    throw new SvcError(
      'SPEC_INVALID',
      `${origin} declares openapi: ${JSON.stringify(record.openapi)}; supported are 3.0.x and 3.1.x (as a string)`,
      { place: placeFor(origin, '/openapi') },
    );
  }
  throw new SvcError(
    'SPEC_INVALID',
    `${origin} is not an OpenAPI or Swagger document (no "openapi: 3.x" or "swagger: \\"2.0\\"" field)`,
    { place: placeFor(origin, '') },
  );
}
