import { describe, expect, it } from 'vitest';
import { compileToolSchema } from '../folder/check-tools.js';
import { advertisedOutputSchema, UNMATCHED } from './advertised-output-schema.js';

function validator(schema: object) {
  const v = compileToolSchema(schema);
  if ('error' in v) throw new Error(v.error);
  return v;
}

describe('advertisedOutputSchema', () => {
  const declared = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    required: ['item', 'same'],
    properties: {
      item: { $ref: '#/$defs/Item' },
      same: { $ref: '#/properties/item' },
      tree: { type: 'array', items: { $ref: '#/$defs/Item' } },
      literal: { const: { $ref: '#/not/a/ref' } },
    },
    $defs: { Item: { type: 'object', required: ['id'], properties: { id: { type: 'integer' } } } },
  };

  it('accepts what the declared schema accepts, and the marker; refuses the rest', () => {
    const advertised = advertisedOutputSchema(declared);
    expect(advertised.type).toBe('object');
    const validate = validator(advertised);
    const good = { item: { id: 1 }, same: { id: 2 }, tree: [{ id: 3 }] };
    expect(validator(declared)(good)).toBe(true);
    expect(validate(good)).toBe(true);
    expect(validate({ ...UNMATCHED })).toBe(true);
    for (const bad of [
      { item: { id: 'x' }, same: { id: 2 } },
      { item: { id: 1 } },
      { item: { id: 1 }, same: { id: 2 }, tree: [{}] },
      { unmatched: false },
      {},
    ])
      expect(validate(bad), JSON.stringify(bad)).toBe(validator(declared)(bad));
  });

  it('keeps the declared definitions at the root and leaves literal values alone', () => {
    const advertised = advertisedOutputSchema(declared) as unknown as {
      $defs: Record<string, Record<string, unknown>>;
    };
    expect(advertised.$defs.Item).toEqual(declared.$defs.Item);
    expect(advertised.$defs.declaredOutput).toMatchObject({
      properties: {
        same: { $ref: '#/$defs/declaredOutput/properties/item' },
        tree: { items: { $ref: '#/$defs/Item' } },
        literal: { const: { $ref: '#/not/a/ref' } },
      },
    });
  });
});
