/**
 * Schema validation that remembers where each problem is: the JSON pointer of the field
 * (for an unknown key, the key itself) and, when the value came from YAML, its line.
 */
import type { ErrorObject } from 'ajv';
import { describeAjvErrors, type SchemaName, type SchemaTypes, validatorFor } from '../schemas/validate.js';
import { lineOfPointer, type ParsedYaml } from './yaml-file.js';

export interface LocatedViolation {
  /** JSON pointer ("" for the root). For an unknown key: the pointer of that key. */
  field: string;
  message: string;
  line?: number;
}

export type LocatedValidation<T> = { ok: true; value: T } | { ok: false; violations: LocatedViolation[] };

export function validateLocated<N extends SchemaName>(
  name: N,
  value: unknown,
  parsed?: ParsedYaml,
): LocatedValidation<SchemaTypes[N]> {
  const fn = validatorFor(name);
  if (fn(value)) return { ok: true, value: value as SchemaTypes[N] };
  const seen = new Set<string>();
  const violations: LocatedViolation[] = [];
  for (const e of fn.errors ?? []) {
    const [described] = describeAjvErrors([e]);
    if (!described) continue;
    const field = fieldOf(e);
    const key = `${field}\u0000${described.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const violation: LocatedViolation = { field, message: described.message };
    if (parsed) violation.line = lineOfPointer(parsed, field);
    violations.push(violation);
  }
  // ajv with allErrors may report only combinator errors (all skipped above); never say "ok" for an invalid value.
  if (violations.length === 0) violations.push({ field: '', message: 'does not match its schema' });
  return { ok: false, violations };
}

function fieldOf(e: ErrorObject): string {
  if (e.keyword === 'additionalProperties') {
    const key = (e.params as { additionalProperty: string }).additionalProperty;
    return `${e.instancePath}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
  }
  return e.instancePath;
}
