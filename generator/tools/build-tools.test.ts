import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import type { SvcTool } from '../../schemas/types.js';
import { validate } from '../../schemas/validate.js';
import { endpointFingerprint, toEndpoints } from '../endpoints/index.js';
import { parseFixture, parseInline } from '../endpoints/test-support.js';
import { buildTool } from './build-tool.js';
import { type BuiltTool, buildTools } from './build-tools.js';
import { loadHtmlToMarkdown } from './html-to-markdown.js';

const ok = { 200: { description: 'ok' } };

type Schema = {
  type: string;
  properties: Record<string, { description?: string } & Record<string, unknown>>;
  required?: string[];
  $defs?: Record<string, unknown>;
};

function byName(tools: BuiltTool[], name: string): SvcTool {
  const found = tools.find((t) => t.tool.name === name);
  if (!found) throw new Error(`no tool ${name}; have ${tools.map((t) => t.tool.name).join(', ')}`);
  return found.tool;
}

function assertUsable(tools: BuiltTool[]): void {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  for (const { key, tool } of tools) {
    expect(key).toBe(tool.name);
    const result = validate('tool', tool);
    expect(result.ok ? [] : result.errors, tool.name).toEqual([]);
    expect(tool.inputSchema.type).toBe('object');
    expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
  }
}

describe('buildTools on the fixtures', async () => {
  const fixtures = {
    petstore: buildTools(toEndpoints(await parseFixture('petstore-3.0.yaml'))),
    catalog: buildTools(toEndpoints(await parseFixture('catalog-3.1.json'))),
    legacy: buildTools(toEndpoints(await parseFixture('legacy-swagger-2.0.yaml'))),
  };

  it('builds valid, disabled, ordered tools whose schemas compile', () => {
    for (const tools of Object.values(fixtures)) {
      assertUsable(tools);
      tools.forEach(({ tool }, i) => {
        expect(tool.enabled).toBe(false);
        expect(tool.origin).toBe('imported');
        expect(tool.sortOrder).toBe(i);
        expect(tool.generated).toEqual({
          name: tool.name,
          fingerprint: expect.stringMatching(/^[0-9a-f]{16}$/),
        });
      });
    }
  });

  it('combines path, query, header and cookie parameters with a record of where each goes', () => {
    const list = byName(fixtures.petstore, 'listPets');
    expect(Object.keys((list.inputSchema as Schema).properties)).toEqual([
      'limit',
      'status',
      'tags',
      'X-Request-Id',
      'session',
    ]);
    expect(list.locations).toEqual({
      limit: { in: 'query', name: 'limit' },
      status: { in: 'query', name: 'status' },
      tags: { in: 'query', name: 'tags', style: 'form', explode: false },
      'X-Request-Id': { in: 'header', name: 'X-Request-Id' },
      session: { in: 'cookie', name: 'session' },
    });
    expect((list.inputSchema as Schema).$defs).toEqual({
      PetStatus: { type: 'string', enum: ['available', 'pending', 'sold'] },
    });
    expect(list.classification).toBe('list');
    expect(list.annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
  });

  it('flattens an object body beside the parameters and suffixes a clashing parameter', () => {
    const update = byName(fixtures.petstore, 'updatePet');
    const schema = update.inputSchema as Schema;
    expect(Object.keys(schema.properties)).toEqual(['petId', 'name__query', 'name', 'status']);
    expect(update.locations.name__query).toEqual({ in: 'query', name: 'name' });
    expect(update.locations.name).toEqual({ in: 'body', name: 'name' });
    expect(update.body).toEqual({ contentType: 'application/x-www-form-urlencoded', required: false });
    expect(schema.required).toEqual(['petId']);
  });

  it('suffixes two parameters sharing a name in different places', () => {
    const replace = byName(fixtures.catalog, 'products_replace');
    expect(replace.locations.sku__path).toEqual({ in: 'path', name: 'sku' });
    expect(replace.locations.sku__query).toEqual({ in: 'query', name: 'sku' });
    // The optional body (Product) requires `sku` and `name`: it travels whole, so that sending
    // it without them is refused.
    expect(replace.locations.body).toEqual({ in: 'body', name: 'body', whole: true });
    expect((replace.inputSchema as Schema).properties.body).toMatchObject({ required: ['sku', 'name'] });
    expect((replace.inputSchema as Schema).required).toEqual(['sku__path']);
  });

  it('puts a oneOf body under `body`, never at the root', () => {
    const create = byName(fixtures.catalog, 'products_create');
    const schema = create.inputSchema as Schema;
    expect(schema.type).toBe('object');
    expect(schema.properties.body).toEqual({
      oneOf: [{ $ref: '#/$defs/Product' }, { $ref: '#/$defs/Bundle' }],
    });
    expect(create.locations.body).toEqual({ in: 'body', name: 'body', whole: true });
    expect(schema.required).toEqual(['body']);
    expect(Object.keys(schema.$defs ?? {})).toEqual(['Bundle', 'Product']);
  });

  it('sends arrays and text whole, multipart and files as properties', () => {
    const adopt = byName(fixtures.petstore, 'adoptPet');
    expect((adopt.inputSchema as Schema).properties.body).toEqual({
      type: 'array',
      items: { $ref: '#/$defs/Owner' },
    });
    // Circular Owner stays a reference to itself inside $defs.
    expect((adopt.inputSchema as Schema).$defs?.Owner).toMatchObject({
      properties: { friends: { items: { $ref: '#/$defs/Owner' } } },
    });
    const archive = byName(fixtures.catalog, 'products_archive');
    expect(archive.body).toEqual({ contentType: 'text/plain', required: false });
    expect(archive.classification).toBe('action');
    const upload = byName(fixtures.legacy, 'uploadAvatar');
    expect(upload.body).toEqual({ contentType: 'multipart/form-data', required: true });
    // The runtime decodes the argument from base64, and the schema says so.
    expect((upload.inputSchema as Schema).properties.file).toEqual({
      type: 'string',
      format: 'binary',
      contentEncoding: 'base64',
      description: 'The image.',
    });
    expect((upload.inputSchema as Schema).required).toEqual(['id', 'file']);
  });

  it('declares base64 for files in whole multipart and octet-stream bodies', async () => {
    const binary = { type: 'string', format: 'binary' };
    const tools = buildTools(
      toEndpoints(
        await parseInline({
          openapi: '3.0.3',
          info: { title: 'T', version: '1' },
          paths: {
            '/raw': {
              put: {
                operationId: 'putRaw',
                requestBody: { required: true, content: { 'application/octet-stream': { schema: binary } } },
                responses: ok,
              },
            },
            '/files': {
              post: {
                operationId: 'postFiles',
                requestBody: {
                  content: {
                    'multipart/form-data': {
                      schema: {
                        type: 'object',
                        required: ['files'],
                        properties: { files: { type: 'array', items: binary }, note: { type: 'string' } },
                      },
                    },
                  },
                },
                responses: ok,
              },
            },
          },
        }),
      ),
    );
    const raw = byName(tools, 'putRaw').inputSchema as Schema;
    expect(raw.properties.body).toEqual({ ...binary, contentEncoding: 'base64' });
    const files = byName(tools, 'postFiles').inputSchema as Schema;
    expect(files.properties.body).toEqual({
      type: 'object',
      required: ['files'],
      properties: {
        files: { type: 'array', items: { ...binary, contentEncoding: 'base64' } },
        note: { type: 'string' },
      },
    });
  });

  it('names a tool without operationId from method and path', () => {
    expect(byName(fixtures.petstore, 'post_pets_by_petId_photo').endpoint).toEqual({
      method: 'POST',
      path: '/pets/{petId}/photo',
    });
  });

  it('adds a lenient output schema that keeps the structure, only for JSON object responses', () => {
    const get = byName(fixtures.petstore, 'listPets');
    const output = get.outputSchema as Schema;
    // Structure kept: nested items through shared $defs; null only where the document says so.
    expect(output.properties).toEqual({
      items: { type: 'array', items: { $ref: '#/$defs/Pet' } },
      next: { type: ['string', 'null'] },
    });
    expect(output.$defs?.Owner).toEqual({
      type: 'object',
      properties: { name: { type: 'string' }, friends: { type: 'array', items: { $ref: '#/$defs/Owner' } } },
    });
    expect(output.$defs?.PetStatus).toEqual({ type: 'string' });
    expect(JSON.stringify(get.outputSchema)).not.toMatch(/required|additionalProperties|enum|description/);
    const ajv = new Ajv2020({ strict: false });
    const check = ajv.compile(get.outputSchema!);
    const pet = { id: 1, name: 'Rex', nickname: null, status: 'adopted', owner: { name: 'A', friends: [] } };
    expect(check({ items: [pet, { ...pet, extra: true }], next: null })).toBe(true);
    expect(check({ items: [{ ...pet, owner: { friends: [{ name: 3 }] } }] })).toBe(false);
    expect(check({ items: 'not a list' })).toBe(false);
    expect(byName(fixtures.catalog, 'products_list').outputSchema).toBeUndefined();
    expect(byName(fixtures.petstore, 'deletePet').outputSchema).toBeUndefined();
    expect(byName(fixtures.petstore, 'deletePet').description).toBe('(deprecated) Delete a pet');
  });

  it('gives every tool its own objects (no sharing that would become YAML anchors)', () => {
    const tools = fixtures.petstore;
    const seen = new Set<object>();
    const walk = (node: unknown) => {
      if (node === null || typeof node !== 'object') return;
      expect(seen.has(node)).toBe(false);
      seen.add(node);
      for (const v of Object.values(node)) walk(v);
    };
    for (const { tool } of tools) {
      walk(tool.inputSchema);
      if (tool.outputSchema) walk(tool.outputSchema);
    }
  });

  it('is deterministic: same input, same bytes', async () => {
    const again = buildTools(toEndpoints(await parseFixture('petstore-3.0.yaml')));
    expect(JSON.stringify(again)).toBe(JSON.stringify(fixtures.petstore));
  });
});

describe('buildTool', () => {
  const longDocument = async () =>
    toEndpoints(
      await parseInline({
        openapi: '3.0.3',
        info: { title: 'T', version: '1' },
        paths: {
          '/x': {
            get: {
              summary: 'Short summary',
              description: 'A sentence that goes on. '.repeat(100),
              parameters: [
                { name: 'q', in: 'query', description: `${'word '.repeat(60)}. Second.`, schema: {} },
              ],
              responses: { 200: { description: 'ok' } },
            },
          },
        },
      }),
    )[0]!;

  it('keeps descriptions whole by default and keeps the fingerprint of the endpoint', async () => {
    const endpoint = await longDocument();
    const tool = buildTool(endpoint, 'x');
    expect(tool.description).toBe(`Short summary\n\n${'A sentence that goes on. '.repeat(100).trim()}`);
    expect((tool.inputSchema as Schema).properties.q?.description).toBe(`${'word '.repeat(60)}. Second.`);
    expect(tool.compact).toBeUndefined();
    expect(tool.generated?.fingerprint).toBe(endpointFingerprint(endpoint));
    expect(tool.name).toBe('x');
  });

  it('caps descriptions when compact', async () => {
    const tool = buildTool(await longDocument(), 'x', { compact: true });
    expect(tool.description.length).toBeLessThanOrEqual(600);
    expect(tool.description.startsWith('Short summary\n\nA sentence')).toBe(true);
    expect(String((tool.inputSchema as Schema).properties.q?.description).length).toBeLessThanOrEqual(90);
  });

  it('turns HTML descriptions into Markdown, in the tool and inside its schema', async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.0',
        info: { title: 'Stripe-like', version: '1' },
        paths: {
          '/v1/charges': {
            post: {
              operationId: 'PostCharges',
              description:
                '<p>To charge a credit card, you create a <code>Charge</code> object.</p><p>See <a href="https://stripe.example/docs">the docs</a>.</p>',
              parameters: [
                {
                  name: 'expand',
                  in: 'query',
                  description: '<p>Fields to <strong>expand</strong>.</p>',
                  schema: {},
                },
              ],
              requestBody: {
                content: {
                  'application/x-www-form-urlencoded': {
                    schema: {
                      type: 'object',
                      properties: {
                        amount: { type: 'integer', description: '<p>Amount in <em>cents</em>.</p>' },
                        note: { type: 'string', description: 'Markdown with `code` and a <br> stays.' },
                      },
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
    const tool = buildTool(endpoint!, 'PostCharges', { markdown: await loadHtmlToMarkdown() });
    expect(tool.description).toBe(
      'To charge a credit card, you create a `Charge` object.\n\nSee [the docs](https://stripe.example/docs).',
    );
    const properties = (tool.inputSchema as Schema).properties;
    expect(properties.expand?.description).toBe('Fields to **expand**.');
    expect(properties.amount?.description).toBe('Amount in _cents_.');
    expect(properties.note?.description).toBe('Markdown with `code` and a <br> stays.');
    // Recorded in .svc/generated.json, not a second time in the tool file.
    expect(tool.generated).not.toHaveProperty('description');
  });

  it('keeps a description written beside a $ref (OpenAPI 3.0, Twilio-like)', async () => {
    const [endpoint] = toEndpoints(
      await parseInline({
        openapi: '3.0.1',
        info: { title: 'Twilio-like', version: '1' },
        paths: {
          '/Messages.json': {
            get: {
              parameters: [
                {
                  name: 'Status',
                  in: 'query',
                  schema: { $ref: '#/components/schemas/status', description: 'The status to filter by.' },
                },
              ],
              responses: { 200: { description: 'ok' } },
            },
          },
        },
        components: { schemas: { status: { type: 'string', enum: ['queued', 'sent'] } } },
      }),
    );
    const tool = buildTool(endpoint!, 'ListMessage');
    expect((tool.inputSchema as Schema).properties.Status).toEqual({
      $ref: '#/$defs/status',
      description: 'The status to filter by.',
    });
  });

  it('marks and shortens only the tools that asked for compact descriptions', async () => {
    const endpoint = await longDocument();
    const [own] = buildTools([endpoint], { compactFor: (e) => e.path === '/x' });
    expect(own!.tool.compact).toBe(true);
    expect(own!.tool.description.length).toBeLessThanOrEqual(600);
    const [folderWide] = buildTools([endpoint], { compact: true });
    expect(folderWide!.tool.compact).toBeUndefined();
    expect(folderWide!.tool.description).toBe(own!.tool.description);
    const [full] = buildTools([endpoint]);
    expect(full!.tool.description.length).toBeGreaterThan(2000);
  });

  it("keeps an optional body's required properties required when the body is sent", async () => {
    const form = (schema: Record<string, unknown>, required?: boolean) => ({
      ...(required === undefined ? {} : { required }),
      content: { 'application/x-www-form-urlencoded': { schema } },
    });
    const message = {
      type: 'object',
      required: ['To'],
      properties: { To: { type: 'string' }, Body: { type: 'string' } },
    };
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.0.1',
        info: { title: 'Twilio-like', version: '1' },
        paths: {
          '/Accounts/{AccountSid}/Messages.json': {
            parameters: [{ name: 'AccountSid', in: 'path', required: true, schema: { type: 'string' } }],
            post: { operationId: 'CreateMessage', requestBody: form(message), responses: ok },
            put: { operationId: 'ReplaceMessage', requestBody: form(message, true), responses: ok },
            patch: {
              operationId: 'UpdateMessage',
              requestBody: form({ $ref: '#/components/schemas/Update' }),
              responses: ok,
            },
          },
        },
        components: { schemas: { Update: { ...message, required: ['Body'] } } },
      }),
    );
    const tools = buildTools(endpoints);
    assertUsable(tools);
    const ajv = new Ajv2020({ strict: false });
    const create = byName(tools, 'CreateMessage');
    const schema = create.inputSchema as Schema;
    expect(schema.required).toEqual(['AccountSid']);
    expect(schema.properties.body).toEqual({
      type: 'object',
      required: ['To'],
      properties: { To: { type: 'string' }, Body: { type: 'string' } },
    });
    expect(create.locations.body).toEqual({ in: 'body', name: 'body', whole: true });
    const check = ajv.compile(create.inputSchema);
    expect(check({ AccountSid: 'AC1' })).toBe(true);
    expect(check({ AccountSid: 'AC1', body: { To: '+15550001' } })).toBe(true);
    expect(check({ AccountSid: 'AC1', body: { Body: 'hi' } })).toBe(false);
    // A $ref'd optional body is shown inline, so its `required` cannot fall to the defs budget.
    const update = byName(tools, 'UpdateMessage').inputSchema as Schema;
    expect(update.properties.body).toMatchObject({ type: 'object', required: ['Body'] });
    // A required body still flattens: its required properties are simply required.
    const replace = byName(tools, 'ReplaceMessage');
    expect((replace.inputSchema as Schema).required).toEqual(['AccountSid', 'To']);
    expect(replace.locations.To).toEqual({ in: 'body', name: 'To' });
  });

  it('gives a 200-operation document unique names even when operationIds repeat', async () => {
    const paths: Record<string, unknown> = {};
    for (let i = 0; i < 100; i++) {
      paths[`/things/${i}`] = {
        get: { operationId: 'getThing', responses: { 200: { description: 'ok' } } },
        post: { operationId: `create_${'long'.repeat(20)}`, responses: { 200: { description: 'ok' } } },
      };
    }
    // Swagger-parser only refuses duplicate operationIds in Swagger 2.0; 3.x documents carry them.
    const tools = buildTools(
      toEndpoints(await parseInline({ openapi: '3.0.3', info: { title: 'T', version: '1' }, paths })),
    );
    expect(new Set(tools.map((t) => t.tool.name)).size).toBe(200);
    assertUsable(tools);
  });
});

describe('a description beside a parameter or request body $ref', () => {
  it('becomes the description of the parameter and of the body in the input schema (OpenAPI 3.1)', async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/items': {
            post: {
              operationId: 'addItems',
              parameters: [{ $ref: '#/components/parameters/Limit', description: 'Max items for this call' }],
              requestBody: { $ref: '#/components/requestBodies/Items', description: 'The items to add' },
              responses: ok,
            },
          },
        },
        components: {
          parameters: {
            Limit: { name: 'limit', in: 'query', description: 'Page size.', schema: { type: 'integer' } },
          },
          requestBodies: {
            Items: {
              description: 'A list of items.',
              content: { 'application/json': { schema: { type: 'array', items: { type: 'string' } } } },
            },
          },
        },
      }),
    );
    const input = byName(buildTools(endpoints), 'addItems').inputSchema as Schema;
    expect(input.properties.limit!.description).toBe('Max items for this call');
    expect(input.properties.body!.description).toBe('The items to add');
  });
});

describe('shared definitions in input schemas', () => {
  const nested = (depth: number) => {
    const schemas: Record<string, unknown> = {};
    for (let i = 0; i < depth; i++) {
      schemas[`Level${i}`] = {
        type: 'object',
        required: ['name'],
        properties: {
          name: { type: 'string', enum: ['alpha', 'beta', 'gamma'], description: 'A name of this level.' },
          ...(i + 1 < depth ? { next: { $ref: `#/components/schemas/Level${i + 1}` } } : {}),
        },
      };
    }
    return schemas;
  };

  it('carries every definition the body reaches, however deep (no budget turns one into a stub)', async () => {
    const warnings: string[] = [];
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/deep': {
            post: {
              operationId: 'deep',
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Level0' } } },
              },
              responses: ok,
            },
          },
        },
        components: { schemas: nested(40) },
      }),
    );
    const tool = byName(buildTools(endpoints, { onWarning: (w) => warnings.push(w) }), 'deep');
    expect(Object.keys(tool.inputSchema.$defs as object)).toHaveLength(39);
    const validate = new Ajv2020({ strict: false }).compile(tool.inputSchema);
    let deepest: Record<string, unknown> = { name: 'delta' };
    for (let i = 0; i < 38; i++) deepest = { name: 'alpha', next: deepest };
    // The 40th level's enum is still checked, and the 40th level accepts a valid name.
    expect(
      validate({ name: 'alpha', next: JSON.parse(JSON.stringify(deepest).replace('delta', 'gamma')) }),
    ).toBe(true);
    expect(validate({ name: 'alpha', next: deepest })).toBe(false);
    expect(warnings).toEqual([]);
  });

  it('beyond the safety limit, leaves the rest open and says which tool', async () => {
    const warnings: string[] = [];
    const huge = Array.from({ length: 40_000 }, (_, i) => `value-${i}`);
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/huge': {
            post: {
              operationId: 'huge',
              requestBody: {
                required: true,
                content: { 'application/json': { schema: { $ref: '#/components/schemas/Wrapper' } } },
              },
              responses: ok,
            },
          },
        },
        components: {
          schemas: {
            Wrapper: { type: 'object', properties: { a: { $ref: '#/components/schemas/Huge' } } },
            Huge: { type: 'string', enum: huge },
          },
        },
      }),
    );
    const tool = byName(buildTools(endpoints, { onWarning: (w) => warnings.push(w) }), 'huge');
    expect(JSON.stringify(tool.inputSchema)).not.toContain('value-39999');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/^tool huge \(POST \/huge\): .*1 of them are left open/);
  });
});

describe('tool titles', () => {
  it('come from the operation summary, on one line; no summary, no title', async () => {
    const endpoints = toEndpoints(
      await parseInline({
        openapi: '3.1.0',
        info: { title: 'T', version: '1' },
        paths: {
          '/a': { get: { operationId: 'a', summary: '  List   every\nthing ', responses: ok } },
          '/b': { get: { operationId: 'b', description: 'No summary here.', responses: ok } },
        },
      }),
    );
    const tools = buildTools(endpoints);
    expect(byName(tools, 'a').title).toBe('List every thing');
    expect(byName(tools, 'b').title).toBeUndefined();
  });
});
