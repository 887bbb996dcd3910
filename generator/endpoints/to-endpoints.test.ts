import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../schemas/types.js';
import { validate } from '../../schemas/validate.js';
import { endpointFingerprint } from './endpoint-fingerprint.js';
import { parseFixture, parseInline } from './test-support.js';
import { pickRequestContentType, toEndpoints } from './to-endpoints.js';

function find(endpoints: Endpoint[], method: string, path: string): Endpoint {
  const found = endpoints.find((e) => e.method === method && e.path === path);
  if (!found) throw new Error(`no ${method} ${path}`);
  return found;
}

describe('toEndpoints: OpenAPI 3.0 (petstore)', async () => {
  const endpoints = toEndpoints(await parseFixture('petstore-3.0.yaml'));

  it('lists every operation sorted by path then method order, each valid against the schema', () => {
    expect(endpoints.map((e) => `${e.method} ${e.path}`)).toEqual([
      'GET /pets',
      'POST /pets',
      'GET /pets/{petId}',
      'PATCH /pets/{petId}',
      'DELETE /pets/{petId}',
      'POST /pets/{petId}/adopt',
      'POST /pets/{petId}/photo',
      'GET /store/inventory',
    ]);
    for (const e of endpoints) expect(validate('endpoint', e)).toMatchObject({ ok: true });
  });

  it('resolves $ref parameters and merges path-level ones', () => {
    const get = find(endpoints, 'GET', '/pets/{petId}');
    expect(get.parameters).toEqual([
      {
        name: 'petId',
        in: 'path',
        required: true,
        description: "The pet's id.",
        schema: { type: 'integer', format: 'int64', minimum: 1 },
      },
    ]);
    const list = find(endpoints, 'GET', '/pets');
    expect(list.parameters.map((p) => `${p.in}:${p.name}`)).toEqual([
      'query:limit',
      'query:status',
      'query:tags',
      'header:X-Request-Id',
      'cookie:session',
    ]);
    expect(list.parameters[2]).toMatchObject({ style: 'form', explode: false });
  });

  it('converts 3.0 keywords to 2020-12: boolean exclusiveMaximum, nullable, example dropped', () => {
    const list = find(endpoints, 'GET', '/pets');
    expect(list.parameters[0]!.schema).toEqual({
      type: 'integer',
      default: 20,
      minimum: 1,
      exclusiveMaximum: 100,
    });
    const post = find(endpoints, 'POST', '/pets');
    const body = post.requestBody!;
    expect(body.contentType).toBe('application/json');
    expect(body.required).toBe(true);
    const schema = body.schema as { properties: Record<string, unknown>; required: string[] };
    // readOnly `id` left out of the request body; `example` and x-* gone.
    expect(Object.keys(schema.properties)).toEqual(['name', 'nickname', 'status', 'owner']);
    expect(schema.properties.name).toEqual({ type: 'string' });
    expect(schema.properties.nickname).toEqual({ type: ['string', 'null'] });
    expect(schema.properties.status).toEqual({ $ref: '#/$defs/PetStatus' });
    expect(JSON.stringify(post)).not.toContain('x-internal');
  });

  it('keeps circular schemas as references, with the transitive defs', () => {
    const post = find(endpoints, 'POST', '/pets');
    expect(Object.keys(post.defs ?? {})).toEqual(['NewPet', 'Owner', 'Pet', 'PetStatus']);
    expect(post.defs?.Owner).toMatchObject({
      properties: { friends: { type: 'array', items: { $ref: '#/$defs/Owner' } } },
    });
    // The 201 response (allOf Pet → NewPet) pulls in Pet and NewPet as well.
    expect(post.response).toMatchObject({
      status: '201',
      contentType: 'application/json',
      schema: { $ref: '#/$defs/Pet' },
    });
  });

  it('picks form and multipart bodies and the success response', () => {
    const patch = find(endpoints, 'PATCH', '/pets/{petId}');
    expect(patch.requestBody?.contentType).toBe('application/x-www-form-urlencoded');
    expect(patch.parameters.map((p) => p.name)).toEqual(['petId', 'name']);
    const photo = find(endpoints, 'POST', '/pets/{petId}/photo');
    expect(photo.operationId).toBeUndefined();
    expect(photo.requestBody).toMatchObject({ contentType: 'multipart/form-data', required: true });
    expect(photo.response).toEqual({ status: '200', description: 'Stored.' });
    const del = find(endpoints, 'DELETE', '/pets/{petId}');
    expect(del.deprecated).toBe(true);
    expect(del.response).toEqual({ status: '204', description: 'Deleted.' });
  });

  it('records the effective security', () => {
    expect(find(endpoints, 'GET', '/pets').security).toEqual([['apiKey']]);
    expect(find(endpoints, 'GET', '/store/inventory').security).toEqual([]);
  });
});

describe('toEndpoints: OpenAPI 3.1 (catalog)', async () => {
  const endpoints = toEndpoints(await parseFixture('catalog-3.1.json'));

  it('ignores webhooks and keeps type arrays and numeric exclusive bounds', () => {
    expect(endpoints).toHaveLength(6);
    const list = find(endpoints, 'GET', '/products');
    expect(list.parameters.map((p) => p.schema)).toEqual([
      { type: ['string', 'null'] },
      { type: 'integer', exclusiveMinimum: 0 },
    ]);
    expect(list.defs?.Product).toMatchObject({
      properties: { price: { type: ['number', 'null'], minimum: 0 } },
    });
    expect(JSON.stringify(list.defs)).not.toContain('examples');
  });

  it('keeps a oneOf body as it is and sorts scheme names in each alternative', () => {
    const post = find(endpoints, 'POST', '/products');
    expect(post.requestBody?.schema).toEqual({
      oneOf: [{ $ref: '#/$defs/Product' }, { $ref: '#/$defs/Bundle' }],
    });
    expect(post.security).toEqual([['bearer'], ['apiKey', 'oauth']]);
  });

  it('lets the operation parameter win over the path-level one with the same name and place', () => {
    const put = find(endpoints, 'PUT', '/products/{sku}');
    expect(put.parameters.map((p) => `${p.in}:${p.name}`)).toEqual(['path:sku', 'query:sku']);
  });
});

describe('toEndpoints: Swagger 2.0 (legacy)', async () => {
  const endpoints = toEndpoints(await parseFixture('legacy-swagger-2.0.yaml'));

  it('turns body parameters into a JSON request body and collectionFormat into style', () => {
    const list = find(endpoints, 'GET', '/users');
    expect(list.parameters[0]).toMatchObject({
      name: 'ids',
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { type: 'integer' } },
    });
    const create = find(endpoints, 'POST', '/users');
    expect(create.requestBody).toMatchObject({ contentType: 'application/json', required: true });
    expect(Object.keys((create.requestBody!.schema as { properties: object }).properties)).toEqual([
      'name',
      'email',
      'manager',
    ]);
    expect(create.defs?.User).toMatchObject({ properties: { email: { type: ['string', 'null'] } } });
    expect(create.response).toMatchObject({ status: '201', contentType: 'application/json' });
  });

  it('turns formData into multipart (with a file) or form-urlencoded', () => {
    const avatar = find(endpoints, 'POST', '/users/{id}/avatar');
    expect(avatar.requestBody).toEqual({
      required: true,
      contentType: 'multipart/form-data',
      schema: {
        type: 'object',
        properties: {
          file: { type: 'string', format: 'binary', description: 'The image.' },
          crop: { type: 'boolean' },
        },
        required: ['file'],
      },
    });
    const login = find(endpoints, 'POST', '/login');
    expect(login.requestBody?.contentType).toBe('application/x-www-form-urlencoded');
    expect(login.security).toEqual([]);
    expect(login.response?.schema).toMatchObject({
      properties: { expires: { type: 'integer', exclusiveMinimum: 0 } },
    });
  });
});

describe('toEndpoints: form body encodings', () => {
  it('records the Encoding Object of form and multipart bodies, and a formData collectionFormat', async () => {
    const [openapi] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/customers': {
            post: {
              requestBody: {
                content: {
                  'application/x-www-form-urlencoded': {
                    schema: {
                      type: 'object',
                      properties: { metadata: { type: 'object' }, expand: { type: 'array' } },
                    },
                    encoding: {
                      metadata: { style: 'deepObject', explode: true },
                      expand: { style: 'deepObject', explode: true, allowReserved: true },
                      note: { contentType: 'text/plain; charset=utf-8' },
                    },
                  },
                },
              },
              responses: { 200: { description: 'ok' } },
            },
          },
        },
      }),
    );
    expect(openapi!.requestBody!.encoding).toEqual({
      expand: { style: 'deepObject', explode: true },
      metadata: { style: 'deepObject', explode: true },
      note: { contentType: 'text/plain; charset=utf-8' },
    });
    const [swagger] = toEndpoints(
      await parseInline({
        swagger: '2.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/tags': {
            post: {
              consumes: ['application/x-www-form-urlencoded'],
              parameters: [
                { name: 'csv', in: 'formData', type: 'array', items: { type: 'string' } },
                {
                  name: 'multi',
                  in: 'formData',
                  type: 'array',
                  items: { type: 'string' },
                  collectionFormat: 'multi',
                },
                {
                  name: 'pipes',
                  in: 'formData',
                  type: 'array',
                  items: { type: 'string' },
                  collectionFormat: 'pipes',
                },
                { name: 'plain', in: 'formData', type: 'string' },
              ],
              responses: { 200: { description: 'ok' } },
            },
          },
        },
      }),
    );
    expect(swagger!.requestBody!.encoding).toEqual({
      csv: { style: 'form', explode: false },
      multi: { style: 'form', explode: true },
      pipes: { style: 'pipeDelimited', explode: false },
    });
  });
});

describe('endpointFingerprint', async () => {
  const parsed = await parseFixture('petstore-3.0.yaml');

  it('is 16 hex chars, stable across runs and key order', async () => {
    const a = toEndpoints(parsed).map(endpointFingerprint);
    const b = toEndpoints(await parseFixture('petstore-3.0.yaml')).map(endpointFingerprint);
    expect(a).toEqual(b);
    for (const f of a) expect(f).toMatch(/^[0-9a-f]{16}$/);
    expect(new Set(a).size).toBe(a.length);
    const e = toEndpoints(parsed)[0]!;
    const reordered = Object.fromEntries(Object.entries(e).reverse()) as unknown as Endpoint;
    expect(endpointFingerprint(reordered)).toBe(endpointFingerprint(e));
  });

  it('changes when a referenced definition changes', async () => {
    const doc = structuredClone(parsed.document) as {
      components: { schemas: { Owner: { properties: Record<string, unknown> } } };
    };
    doc.components.schemas.Owner.properties.age = { type: 'integer' };
    const changed = toEndpoints({ ...parsed, document: doc as unknown as Record<string, unknown> });
    const before = toEndpoints(parsed);
    const post = (list: Endpoint[]) => endpointFingerprint(find(list, 'POST', '/pets'));
    const get = (list: Endpoint[]) => endpointFingerprint(find(list, 'DELETE', '/pets/{petId}'));
    expect(post(changed)).not.toBe(post(before));
    expect(get(changed)).toBe(get(before));
  });
});

describe('schema conversion edge cases', () => {
  it('drops values a validator would refuse and sanitizes def names deterministically', async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            post: {
              requestBody: {
                content: { 'application/json': { schema: { $ref: '#/components/schemas/My Thing' } } },
              },
              responses: { default: { description: 'd' } },
            },
          },
        },
        components: {
          schemas: {
            'My Thing': {
              type: 'object',
              properties: {
                a: { type: 'string', pattern: '(?<=x', required: true },
                b: {
                  type: 'string',
                  uniqueItems: true,
                  xml: { name: 'b' },
                  discriminator: { propertyName: 'b' },
                },
                c: { $ref: '#/components/schemas/My_Thing' },
              },
            },
            My_Thing: { type: 'integer' },
          },
        },
      }),
    );
    const e = endpoints[0]!;
    expect(Object.keys(e.defs ?? {})).toEqual(['My_Thing', 'My_Thing_2']);
    // "My Thing" sorts before "My_Thing" so it gets the plain sanitized name.
    expect(e.requestBody?.schema).toEqual({ $ref: '#/$defs/My_Thing' });
    expect(e.defs?.My_Thing).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'string' }, c: { $ref: '#/$defs/My_Thing_2' } },
    });
    expect(e.response).toEqual({ status: 'default', description: 'd' });
  });

  it('adds a path parameter the document forgot to declare, as a required string', async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: { '/items/{id}/parts/{part}': { get: { responses: { 200: { description: 'ok' } } } } },
      }),
    );
    expect(endpoint!.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
      { name: 'part', in: 'path', required: true, schema: { type: 'string' } },
    ]);
  });

  it('prefers JSON, then form, multipart, text, bytes for request bodies', () => {
    expect(pickRequestContentType(['application/xml', 'application/vnd.api+json'])).toBe(
      'application/vnd.api+json',
    );
    expect(pickRequestContentType(['text/plain', 'multipart/form-data'])).toBe('multipart/form-data');
    expect(pickRequestContentType(['application/octet-stream', 'text/plain'])).toBe('text/plain');
    expect(pickRequestContentType(['application/xml'])).toBe('application/xml');
  });
});

describe('a description beside a parameter or request body $ref (Reference Object)', () => {
  /** One operation whose limit parameter and body are references with descriptions of their own. */
  function document(openapi: string): Record<string, unknown> {
    return {
      openapi,
      info: { title: 'T', version: '1' },
      paths: {
        '/items': {
          post: {
            parameters: [
              { $ref: '#/components/parameters/Limit', description: 'Max items for this call' },
              { $ref: '#/components/parameters/Cursor' },
            ],
            requestBody: { $ref: '#/components/requestBodies/Items', description: 'The items to add' },
            responses: { '204': { description: 'Done.' } },
          },
        },
      },
      components: {
        parameters: {
          Limit: { name: 'limit', in: 'query', description: 'Page size.', schema: { type: 'integer' } },
          Cursor: { $ref: '#/components/parameters/CursorBase', description: 'Where the page starts' },
          CursorBase: { name: 'cursor', in: 'query', description: 'A cursor.', schema: { type: 'string' } },
        },
        requestBodies: {
          Items: {
            description: 'A list of items.',
            required: true,
            content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
          },
        },
      },
    };
  }

  for (const version of ['3.1.0', '3.0.3']) {
    it(`overrides the referenced description in OpenAPI ${version}, the nearest reference's first`, async () => {
      const [endpoint] = toEndpoints(await parseInline(document(version)));
      expect(endpoint!.parameters.map((p) => [p.name, p.description])).toEqual([
        ['limit', 'Max items for this call'],
        ['cursor', 'Where the page starts'],
      ]);
      expect(endpoint!.requestBody).toMatchObject({ required: true, description: 'The items to add' });
    });
  }

  it('leaves the referenced description alone when the reference has none', async () => {
    const doc = document('3.1.0');
    const op = (doc.paths as Record<string, Record<string, Record<string, unknown>>>)['/items']!.post!;
    op.parameters = [{ $ref: '#/components/parameters/Limit' }];
    op.requestBody = { $ref: '#/components/requestBodies/Items', description: '  ' };
    const [endpoint] = toEndpoints(await parseInline(doc));
    expect(endpoint!.parameters[0]!.description).toBe('Page size.');
    expect(endpoint!.requestBody!.description).toBe('A list of items.');
  });
});

describe('OAuth scopes from security requirements', () => {
  const doc = (security: unknown[], opSecurity?: unknown[]) => ({
    openapi: '3.0.3',
    info: { title: 'T', version: '1' },
    security,
    components: {
      securitySchemes: {
        oauth: {
          type: 'oauth2',
          flows: { implicit: { authorizationUrl: 'https://a.test/auth', scopes: {} } },
        },
        oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://a.test/.well-known/openid-configuration' },
        key: { type: 'apiKey', in: 'header', name: 'X-Key' },
      },
    },
    paths: {
      '/a': { get: { responses: { 200: { description: 'ok' } } } },
      '/b': {
        post: { ...(opSecurity ? { security: opSecurity } : {}), responses: { 200: { description: 'ok' } } },
      },
    },
  });

  it('records the scopes of oauth2 and openIdConnect schemes, every alternative, sorted; none for api keys', async () => {
    const endpoints = toEndpoints(
      await parseInline(
        doc(
          [{ oauth: ['items:read'] }, { key: [] }],
          [{ oauth: ['items:write', 'items:read'] }, { oidc: ['profile'] }],
        ),
      ),
    );
    expect(find(endpoints, 'GET', '/a').scopes).toEqual(['items:read']);
    expect(find(endpoints, 'POST', '/b').scopes).toEqual(['items:read', 'items:write', 'profile']);
    const keysOnly = toEndpoints(await parseInline(doc([{ key: [] }])));
    expect(find(keysOnly, 'GET', '/a').scopes).toBeUndefined();
    for (const e of endpoints) expect(validate('endpoint', e).ok).toBe(true);
  });
});
