import { describe, expect, it } from 'vitest';
import { buildTools } from '../tools/index.js';
import { parseInline } from './test-support.js';
import { toEndpoints } from './to-endpoints.js';
import { UNSUPPORTED_LEDGER } from './unsupported-ledger.js';

const ok = { 200: { description: 'ok' } };

/** One check per ledger entry: each proves the entry still describes what the generator does. */
const checks: Record<string, () => Promise<void>> = {
  'trace-method': async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: { '/x': { trace: { responses: ok }, get: { responses: ok } } },
      }),
    );
    expect(endpoints.map((e) => e.method)).toEqual(['GET']);
  },
  webhooks: async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {},
        webhooks: { ping: { post: { responses: ok } } },
      }),
    );
    expect(endpoints).toEqual([]);
  },
  'callbacks-links': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            post: {
              callbacks: { done: { '{$request.body#/url}': { post: { responses: ok } } } },
              responses: { 200: { description: 'ok', links: { self: { operationId: 'x' } } } },
            },
          },
        },
      }),
    );
    const { contract, ...forTools } = endpoint!;
    expect(JSON.stringify(forTools)).not.toMatch(/callbacks|links|request\.body/);
    expect(contract?.callbacks?.done).toBeDefined();
    expect(contract?.responses?.['200']?.links).toEqual(['self']);
  },
  'operation-servers': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: { '/x': { servers: [{ url: 'https://other.test' }], get: { responses: ok } } },
      }),
    );
    expect(JSON.stringify(endpoint)).not.toContain('other.test');
  },
  'swagger-tsv': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        swagger: '2.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              parameters: [
                { name: 'a', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'tsv' },
              ],
              responses: ok,
            },
          },
        },
      }),
    );
    expect(endpoint!.parameters[0]).toMatchObject({ style: 'form', explode: false });
  },
  'multiple-body-media-types': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            post: {
              requestBody: {
                content: { 'text/plain': { schema: { type: 'string' } }, 'application/json': {} },
              },
              responses: ok,
            },
          },
        },
      }),
    );
    expect(endpoint!.requestBody?.contentType).toBe('application/json');
  },
  'other-body-media-types': async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': { post: { requestBody: { content: { 'application/xml': {} } }, responses: ok } },
          '/y': { post: { requestBody: { content: { 'text/csv': {} } }, responses: ok } },
        },
      }),
    );
    const tools = buildTools(endpoints);
    expect(tools.map((t) => t.tool.body?.contentType)).toEqual(['application/octet-stream', 'text/plain']);
    expect(tools[0]!.tool.locations.body).toEqual({ in: 'body', name: 'body', whole: true });
  },
  'ref-siblings': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              parameters: [
                {
                  name: 'a',
                  in: 'query',
                  schema: { $ref: '#/components/schemas/A', description: 'kept', minimum: 3 },
                },
              ],
              responses: ok,
            },
          },
        },
        components: { schemas: { A: { type: 'integer' } } },
      }),
    );
    expect(endpoint!.parameters[0]!.schema).toEqual({ $ref: '#/$defs/A', description: 'kept' });
  },
  'schema-noise': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              parameters: [
                {
                  name: 'a',
                  in: 'query',
                  schema: {
                    type: 'string',
                    title: 'A',
                    example: 'e',
                    externalDocs: { url: 'https://d.test' },
                    'x-y': 1,
                  },
                },
              ],
              responses: ok,
            },
          },
        },
      }),
    );
    expect(endpoint!.parameters[0]!.schema).toEqual({ type: 'string' });
  },
  'deep-defs': async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            post: {
              requestBody: {
                content: {
                  'application/json': {
                    schema: { type: 'object', properties: { big: { $ref: '#/components/schemas/Big' } } },
                  },
                },
              },
              responses: ok,
            },
          },
        },
        components: {
          schemas: {
            Big: {
              type: 'object',
              description: 'A big one.',
              properties: {
                code: { type: 'string', enum: Array.from({ length: 40_000 }, (_, i) => `c${i}`) },
              },
            },
          },
        },
      }),
    );
    const warnings: string[] = [];
    const [built] = buildTools(endpoints, { onWarning: (w) => warnings.push(w) });
    const schema = built!.tool.inputSchema as unknown as {
      properties: Record<string, unknown>;
      $defs?: unknown;
    };
    expect(schema.$defs).toBeUndefined();
    expect(schema.properties.big).toEqual({ type: 'object', description: 'A big one.' });
    expect(warnings).toHaveLength(1);
  },
  'encoding-allow-reserved-headers': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            post: {
              requestBody: {
                content: {
                  'application/x-www-form-urlencoded': {
                    schema: { type: 'object', properties: { q: { type: 'string' } } },
                    encoding: {
                      q: { allowReserved: true, headers: { 'X-Part': { schema: { type: 'string' } } } },
                    },
                  },
                },
              },
              responses: ok,
            },
          },
        },
      }),
    );
    expect(endpoint!.requestBody!.encoding).toBeUndefined();
  },
  'nullable-without-type': async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              parameters: [
                { name: 'a', in: 'query', schema: { nullable: true, anyOf: [{ type: 'string' }] } },
              ],
              responses: ok,
            },
          },
        },
      }),
    );
    expect(endpoint!.parameters[0]!.schema).toEqual({ anyOf: [{ type: 'string' }] });
  },
};

describe('unsupported-feature ledger', () => {
  it('has a check for every entry and an entry for every check', () => {
    expect(Object.keys(checks).sort()).toEqual(UNSUPPORTED_LEDGER.map((e) => e.id).sort());
  });
  for (const entry of UNSUPPORTED_LEDGER) {
    it(`${entry.id}: ${entry.what_happens}`, async () => {
      await checks[entry.id]!();
    });
  }
});
