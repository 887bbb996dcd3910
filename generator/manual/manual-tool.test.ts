import { describe, expect, it } from 'vitest';
import { validate } from '../../schemas/validate.js';
import { manualEndpoint, manualTool } from './manual-tool.js';
import { parseParamSpec } from './param-spec.js';

describe('parseParamSpec', () => {
  it('reads name:in:type:required and a description with colons', () => {
    expect(parseParamSpec('id:path:string:required')).toEqual({
      name: 'id',
      in: 'path',
      type: 'string',
      required: true,
    });
    expect(parseParamSpec('q:query:string:optional:Search: name or email')).toEqual({
      name: 'q',
      in: 'query',
      type: 'string',
      required: false,
      description: 'Search: name or email',
    });
  });

  it('defaults to an optional query string and forces path parameters required', () => {
    expect(parseParamSpec('limit')).toEqual({ name: 'limit', in: 'query', type: 'string', required: false });
    expect(parseParamSpec('id:path:integer').required).toBe(true);
  });

  it('names the bad field', () => {
    expect(() => parseParamSpec('id:body:uuid')).toThrow(/type "uuid"/);
    expect(() => parseParamSpec('id:url:string')).toThrow(/location "url"/);
    expect(() => parseParamSpec('a b:query:string')).toThrow(/parameter name/);
  });
});

describe('manualTool', () => {
  it('builds a valid, disabled, manual tool whose path parameter goes in the path', () => {
    const tool = manualTool(
      { method: 'get', path: '/contacts/{id}', params: [parseParamSpec('id:path:string:required')] },
      3,
    );
    expect(validate('tool', tool).ok).toBe(true);
    expect(tool).toMatchObject({
      enabled: false,
      origin: 'manual',
      sortOrder: 3,
      classification: 'get',
      endpoint: { method: 'GET', path: '/contacts/{id}' },
      locations: { id: { in: 'path', name: 'id' } },
      annotations: { readOnlyHint: true, destructiveHint: false },
    });
    expect((tool.inputSchema as { required?: string[] }).required).toEqual(['id']);
    expect(tool.generated).toBeUndefined();
  });

  it('declares undeclared path variables and sends body parameters as JSON', () => {
    const endpoint = manualEndpoint({
      method: 'POST',
      path: '/contacts/{id}/notes',
      params: [parseParamSpec('text:body:string:required')],
    });
    expect(endpoint.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect(endpoint.requestBody).toEqual({
      required: true,
      contentType: 'application/json',
      schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    });
  });

  it('refuses dot segments, unknown methods and a declared path parameter missing from the path', () => {
    expect(() => manualEndpoint({ method: 'GET', path: '/a/../b', params: [] })).toThrow(/segment/);
    expect(() => manualEndpoint({ method: 'FETCH', path: '/a', params: [] })).toThrow(/method/);
    expect(() =>
      manualEndpoint({ method: 'GET', path: '/a', params: [parseParamSpec('id:path:string')] }),
    ).toThrow(/does not appear/);
  });
});
