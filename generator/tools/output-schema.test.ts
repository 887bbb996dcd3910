import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { toEndpoints } from '../endpoints/index.js';
import { parseInline } from '../endpoints/test-support.js';
import { buildOutputSchema, lenientSchema } from './output-schema.js';

const message = {
  type: 'object',
  properties: {
    sid: { type: 'string', description: 'The unique string that identifies the resource.' },
    body: { type: 'string', nullable: true },
    price: {
      type: 'object',
      nullable: true,
      properties: { amount: { type: 'string' }, currency: { type: 'string' } },
    },
    subresource_uris: { type: 'object', properties: { media: { type: 'string' } } },
    media: { type: 'array', items: { $ref: '#/components/schemas/media' } },
  },
};
const media = {
  type: 'object',
  required: ['sid'],
  additionalProperties: false,
  properties: {
    sid: { type: 'string', pattern: '^ME' },
    content_type: { type: 'string', enum: ['image/png'] },
    kind: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
  },
};

async function outputOf(schema: unknown) {
  const [endpoint] = toEndpoints(
    await parseInline({
      openapi: '3.0.1',
      info: { title: 'Twilio-like', version: '1' },
      paths: {
        '/Messages.json': {
          post: {
            responses: { 201: { description: 'ok', content: { 'application/json': { schema } } } },
          },
        },
      },
      components: { schemas: { message, media } },
    }),
  );
  return buildOutputSchema(endpoint!);
}

describe('buildOutputSchema', () => {
  it('keeps nested objects and declared nullability, and drops what constrains values', async () => {
    const output = await outputOf({ $ref: '#/components/schemas/message' });
    expect(output).toEqual({
      type: 'object',
      properties: {
        sid: { type: 'string' },
        body: { type: ['string', 'null'] },
        price: {
          type: ['object', 'null'],
          properties: { amount: { type: 'string' }, currency: { type: 'string' } },
        },
        subresource_uris: { type: 'object', properties: { media: { type: 'string' } } },
        media: { type: 'array', items: { $ref: '#/$defs/media' } },
      },
      $defs: {
        media: {
          type: 'object',
          properties: {
            sid: { type: 'string' },
            content_type: { type: 'string' },
            kind: { anyOf: [{ type: 'string' }, { type: 'integer' }] },
          },
        },
      },
    });
    // What a real upstream sends validates, extra fields and new enum values included.
    const check = new Ajv2020({ strict: false }).compile(output!);
    const sent = {
      sid: 'SM1',
      body: null,
      price: null,
      subresource_uris: { media: '/m' },
      media: [{ sid: 'XX', content_type: 'image/webp', added_later: 1 }],
      unknown: true,
    };
    expect(check(sent)).toBe(true);
    expect(check({ ...sent, price: { amount: 3 } })).toBe(false);
  });

  it('leaves out non-object and union responses', async () => {
    expect(await outputOf({ type: 'array', items: { type: 'string' } })).toBeUndefined();
    expect(await outputOf({ oneOf: [{ type: 'object' }, { type: 'string' }] })).toBeUndefined();
  });

  it('never refuses a property the document forbids with a false schema', () => {
    expect(lenientSchema({ type: 'object', properties: { a: false }, items: false })).toEqual({
      type: 'object',
      properties: { a: true },
    });
  });
});
