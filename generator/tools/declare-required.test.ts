import { describe, expect, it } from 'vitest';
import { undeclaredRequired } from '../../folder/required-names.js';
import { declareRequiredNames, UNDESCRIBED } from './declare-required.js';

describe('declareRequiredNames', () => {
  it('declares a required name the object leaves out, in shared definitions too', () => {
    const schema: Record<string, unknown> = {
      type: 'object',
      properties: { body: { $ref: '#/$defs/SectionRequest' } },
      required: ['body'],
      additionalProperties: false,
      $defs: {
        SectionRequest: {
          type: 'object',
          properties: { name: { type: 'string' } },
          required: ['project', 'name'],
        },
      },
    };
    expect(undeclaredRequired(schema)).toEqual([['/$defs/SectionRequest/required/0', 'project']]);
    declareRequiredNames(schema);
    expect(undeclaredRequired(schema)).toEqual([]);
    expect(
      (schema.$defs as Record<string, { properties: Record<string, unknown> }>).SectionRequest?.properties,
    ).toEqual({ name: { type: 'string' }, project: { description: UNDESCRIBED } });
  });

  it('leaves objects whose other keywords may declare the name alone', () => {
    const schema = { type: 'object', allOf: [{ properties: { a: {} } }], required: ['a'] };
    const before = structuredClone(schema);
    declareRequiredNames(schema);
    expect(schema).toEqual(before);
  });
});
