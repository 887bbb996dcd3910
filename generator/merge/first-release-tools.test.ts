import { describe, expect, it } from 'vitest';
import { toEndpoints } from '../endpoints/index.js';
import { parseInline } from '../endpoints/test-support.js';
import { buildTools } from '../tools/build-tools.js';
import { firstReleaseTools } from './first-release-tools.js';

describe('firstReleaseTools: what the first svc releases wrote', () => {
  it('leaves out what later releases add and keeps the old body and output forms', async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/things/{id}': {
            patch: {
              operationId: 'patchThing',
              parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
              requestBody: {
                content: {
                  'application/json': {
                    schema: {
                      type: 'object',
                      required: ['name'],
                      properties: { name: { type: 'string' }, kind: { type: 'string' } },
                    },
                  },
                },
              },
              responses: {
                '200': {
                  description: 'ok',
                  content: {
                    'application/json': {
                      schema: {
                        type: 'object',
                        properties: {
                          id: { type: 'string' },
                          tags: { type: 'array', items: { type: 'string' } },
                        },
                      },
                    },
                  },
                },
              },
            },
          },
          '/things': {
            post: {
              operationId: 'addThing',
              requestBody: {
                required: true,
                content: {
                  'application/json': {
                    schema: {
                      oneOf: [
                        { type: 'object', required: ['a'] },
                        { type: 'object', required: ['b'] },
                      ],
                    },
                  },
                },
              },
              responses: { '204': { description: 'ok' } },
            },
          },
        },
      }),
    );
    const today = buildTools(endpoints);
    const older = firstReleaseTools(endpoints);
    const patch = older.find((t) => t.key === 'patchThing')!.tool;
    // The optional body's properties beside the parameters, none required.
    expect(Object.keys(patch.inputSchema.properties as object)).toEqual(['id', 'name', 'kind']);
    expect(patch.inputSchema.required).toEqual(['id']);
    expect(patch.body).toEqual({ contentType: 'application/json', required: false });
    // Output: top-level names, each typed and nullable, nothing nested.
    expect(patch.outputSchema).toEqual({
      type: 'object',
      properties: { id: { type: ['string', 'null'] }, tags: { type: ['array', 'null'] } },
    });
    // Its record is the endpoint's, as today's.
    expect(patch.generated).toEqual(today.find((t) => t.key === 'patchThing')!.tool.generated);
    // Required names the document never declares were not declared then.
    const add = older.find((t) => t.key === 'addThing')!.tool;
    const branches = (add.inputSchema.properties as Record<string, { oneOf: unknown[] }>).body!.oneOf;
    const todays = today.find((t) => t.key === 'addThing')!.tool.inputSchema.properties as Record<
      string,
      { oneOf: { properties?: unknown }[] }
    >;
    expect(todays.body!.oneOf[0]!.properties).toBeDefined();
    expect(branches).toEqual([
      { type: 'object', required: ['a'] },
      { type: 'object', required: ['b'] },
    ]);
  });
});
