/**
 * `--param name:in:type[:required]` as given to `svc tool add`, parsed into the
 * endpoint model's parameter or body-property form.
 */
import { SvcError } from '../../core/svc-error.js';

export const PARAM_LOCATIONS = ['path', 'query', 'header', 'cookie', 'body'] as const;
export const PARAM_TYPES = ['string', 'integer', 'number', 'boolean', 'array', 'object'] as const;

export interface ParamSpec {
  name: string;
  in: (typeof PARAM_LOCATIONS)[number];
  type: (typeof PARAM_TYPES)[number];
  required: boolean;
  description?: string;
}

export function parseParamSpec(text: string): ParamSpec {
  // The description may contain colons, so it is everything after the fourth field.
  const [name, where = 'query', type = 'string', flag, ...rest] = text.split(':');
  const place = { field: `--param ${text}` };
  if (!name || !/^[A-Za-z0-9_.[\]-]{1,64}$/.test(name)) {
    throw new SvcError(
      'USAGE',
      `parameter name "${name ?? ''}" must be 1-64 letters, digits, "_", "-", "." or "[]"`,
      {
        place,
      },
    );
  }
  if (!(PARAM_LOCATIONS as readonly string[]).includes(where)) {
    throw new SvcError(
      'USAGE',
      `parameter location "${where}" must be one of ${PARAM_LOCATIONS.join(', ')}`,
      { place },
    );
  }
  if (!(PARAM_TYPES as readonly string[]).includes(type)) {
    throw new SvcError('USAGE', `parameter type "${type}" must be one of ${PARAM_TYPES.join(', ')}`, {
      place,
    });
  }
  if (flag !== undefined && flag !== '' && flag !== 'required' && flag !== 'optional') {
    throw new SvcError('USAGE', `the fourth field must be "required" or "optional", not "${flag}"`, {
      place,
    });
  }
  const description = rest.join(':').trim();
  return {
    name,
    in: where as ParamSpec['in'],
    type: type as ParamSpec['type'],
    // Path parameters are always required (OpenAPI says so too).
    required: flag === 'required' || where === 'path',
    ...(description ? { description } : {}),
  };
}
